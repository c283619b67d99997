/**
 * A whole run on a named queue (RunRecord.queue; `engine.start(…, { queue })` or the workflow's
 * `queue`): before its body runs, every turn holds the run's slot — the queue item of position
 * RUN_SLOT_SEQ, asked for like a queued step's attempt (step_queue.ts) — and the run's end
 * gives it back (FinishRunOp.releaseQueues; a cancel or a park drops it in the store).
 *
 * Why every turn asks, not only the first: a slot held by a run that was parked, or requeued,
 * was taken back by the store, and the position's `waiting` record cannot say so. Asking again
 * is one save whose answer comes from the item itself — `granted` while the item still holds
 * its slot (a replayed request keeps its place), else a place in line — so a run never starts
 * its body on a slot it no longer holds, and never takes a second one.
 *
 * The run's place: its own priority, and the fairness key the queue derives from its input
 * (`registerQueue(name, { fairness })`), else one key.
 */
import { RUN_SLOT_SEQ } from '../store/queue_check.ts'
import type { StepRecordInput, TurnRuntime } from './runtime.ts'
import type { CheckpointRecord } from '../contracts/records.ts'
import { QueueSlot, queueLane, type QueuePlacement } from './step_queue.ts'

/** The name of the run slot's `waiting` checkpoint (at RUN_SLOT_SEQ). */
export const RUN_SLOT_NAME = 'cairn:run-slot'

/** What the run does once its slot is settled. */
export interface RunSlotHandlers {
  /** The run holds its slot: run the body. */
  start(): void
  /**
   * The run cannot be placed in its queue (the queue's fairness key could not be derived from
   * its input, E_INVALID_ARGUMENT): the run fails with `error`.
   */
  fail(error: unknown): void
}

/**
 * Hold the run's slot of `queue`, then call `handlers.start` — at once when the store grants
 * it, else after a durable wait (the run may suspend, waiting on the queue, and a grant wakes
 * it). Counted as the turn's work until granted or waiting, so the turn neither suspends
 * before the request is durable nor stays open while it waits.
 */
export function holdRunSlot(
  rt: TurnRuntime,
  queue: string,
  input: unknown,
  handlers: RunSlotHandlers,
): void {
  const recorded = rt.recordAt(RUN_SLOT_SEQ)
  let placement: QueuePlacement
  try {
    placement = recordedPlacement(rt, recorded, queue) ?? placeRun(rt, queue, input)
  } catch (error) {
    return handlers.fail(error)
  }
  const lane = { queue, place: () => placement }
  const slot = new QueueSlot(rt, RUN_SLOT_SEQ, lane, "the run's own slot")
  const step: StepRecordInput = {
    seq: RUN_SLOT_SEQ,
    name: RUN_SLOT_NAME,
    kind: 'step',
    attempts: 0,
    startedAt: recorded?.startedAt ?? rt.clock.now(),
    // The place as first worked out: a later turn asks from it again, so a queue's fairness
    // changed by a later deploy never moves (or fails) a run already under way.
    input: rt.codec.encode(placement, 'the run slot placement'),
  }
  rt.beginWork()
  // One attempt for the run's whole life: a request again is the same item, keeping its place.
  slot.acquire(step, 1, {
    granted: (resumed) => {
      // Back from a wait: the turn's work count was given up when told `waiting`.
      if (resumed) rt.beginWork()
      handlers.start()
      rt.endWork()
    },
    waiting: () => rt.endWork(),
    lost: () => rt.endWork(),
    refused: (error) => {
      handlers.fail(error)
      rt.endWork()
    },
  })
}

/** The run's place in its queue, from its priority and the queue's fairness over its input. */
function placeRun(rt: TurnRuntime, queue: string, input: unknown): QueuePlacement {
  const choice = { queue, priority: rt.priority, fairnessKey: null }
  return queueLane(rt, choice, input, `run of workflow "${rt.workflow}"`).place()
}

/** The place a previous turn recorded with the request, or null (first turn, or unreadable). */
function recordedPlacement(
  rt: TurnRuntime,
  recorded: CheckpointRecord | undefined,
  queue: string,
): QueuePlacement | null {
  if (recorded?.input == null) return null
  try {
    const placed = rt.codec.decode(recorded.input) as Partial<QueuePlacement> | null
    if (
      placed?.queue === queue &&
      typeof placed.fairnessKey === 'string' &&
      Number.isSafeInteger(placed.priority)
    )
      return { queue, priority: placed.priority as number, fairnessKey: placed.fairnessKey }
  } catch {
    // Written by another codec: worked out again below.
  }
  return null
}
