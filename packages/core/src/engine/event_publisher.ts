/**
 * `engine.publishEvent(name, payload, { eventId })`: broadcast an event to every run waiting
 * for it (`ctx.waitForEvent(name, { match })`) whose wait began at or before the publish and
 * whose match holds. The event is first appended to the event log (durable), then the
 * registered waits of that name are read and delivered to: a run still on its way to
 * suspending finds the event in the log once its suspend is durable (event_catch_up.ts).
 * Cost: one read of the name's registered waits, matched here, and one delivery per match.
 * Idempotent by `eventId`: a wait receives a given event id at most once. Workflows whose
 * `onEvent` the event matches get a run started (event_triggers.ts), once per event id.
 */
import { randomUUID } from 'node:crypto'
import type { EventBatchState } from '../contracts/event_batches.ts'
import type { EventRecord, EventWaitRecord } from '../contracts/records.ts'
import type { OpResult } from '../contracts/state_store.ts'
import { InvalidArgumentError } from '../errors/index.ts'
import { eventDelivery, eventReaches } from '../execution/event_delivery.ts'
import { checkSignalName } from '../execution/wait_names.ts'
import { assertIdentifier } from '../util/validate.ts'
import type { Committer } from './committer.ts'
import type { Driver } from './driver.ts'
import type { ResolvedEngineOptions } from './options.ts'
import { planTriggers } from './event_triggers.ts'
import type { RegisteredWorkflow } from './registry.ts'
import type { StartedRun } from './run_starter.ts'
import { startTriggeredRuns, type TriggeredRun } from './triggered_runs.ts'

/** Old events pruned by one publish, at most: the log shrinks a little at every publish. */
const PRUNE_PER_PUBLISH = 100

export interface PublishEventOptions {
  /**
   * Deduplication id: a publish retried with the same id reaches each wait at most once (the
   * first publication time counts). Give one whenever a publish may be retried. Default:
   * random.
   */
  eventId?: string
}

export interface PublishedEvent {
  eventId: string
  /** Waits this call delivered the event to (a retry reports 0 for those that already had it). */
  delivered: number
  /**
   * The runs the event starts (workflows' `onEvent`), one per workflow and run id, and what
   * each came to: a retried publish reports them `existing`. A trigger whose `match`, `runId`
   * or batch `key` threw is here too, `refused` with no run id.
   */
  started: TriggeredRun[]
  /**
   * The accumulators the event joined (triggers with a `batch`), each as it is now: its
   * workflow, key, id, size and due time. [] for a retried publish (it joined them the first
   * time).
   */
  batched: EventBatchState[]
}

export interface EventPublisherDeps {
  options: ResolvedEngineOptions
  committer: Committer
  driver: Driver
  /** The newest registered version of every workflow (whose `onEvent` may name the event). */
  workflows(): readonly RegisteredWorkflow[]
  /** engine.start of `workflow` with `input` under `runId`. */
  start(workflow: string, input: unknown, runId: string): Promise<StartedRun>
  /** An accumulator the event joined is due at `at` (EventBatchFirer.dueAt). */
  batchDueAt(at: number): void
}

export async function publishEvent(
  deps: EventPublisherDeps,
  name: string,
  payload: unknown,
  options: PublishEventOptions = {},
): Promise<PublishedEvent> {
  checkSignalName(name, 'an event name')
  if (typeof options !== 'object' || options === null) {
    throw new InvalidArgumentError('publishEvent options must be an object { eventId? }')
  }
  const eventId = options.eventId ?? randomUUID()
  assertIdentifier(eventId, 'eventId')
  const { codec, clock, store, eventRetentionMs } = deps.options
  const encoded = codec.encode(payload, `payload of event "${name}"`)
  const now = clock.now()
  const appended = { id: eventId, name, payload: encoded, publishedAt: now }
  const prune = { before: now - eventRetentionMs, limit: PRUNE_PER_PUBLISH }
  // Decided before the append: the accumulator adds go in its transaction (once per event id).
  const plan = planTriggers(deps.workflows(), name, eventId, () => codec.decode(encoded))
  const { publishedAt, batches } = await store.appendEvent(appended, prune, plan.adds)
  for (const batch of batches) deps.batchDueAt(batch.dueAt)
  const event: EventRecord = { ...appended, publishedAt }
  const decoded = codec.decode(encoded)
  // Settled into a value at once: a failed start must not be an unhandled rejection while the
  // deliveries below are awaited; it fails the publish at the end.
  const starting = startTriggeredRuns(
    {
      logger: deps.options.logger,
      start: (workflow, runId) => deps.start(workflow, codec.decode(encoded), runId),
    },
    { name, eventId },
    plan.starts,
  ).then(
    (runs) => ({ runs }),
    (error: unknown) => ({ error }),
  )
  const reached = (await store.loadEventWaits(name)).filter((wait) =>
    eventReaches(wait, event, decoded),
  )
  const results = await Promise.all(
    reached.map((wait) => deps.committer.enqueue(eventDelivery(wait, event), true)),
  )
  await forgetEnded(deps, reached, results)
  const delivered = results.filter((r) => r.status === 'delivered' && !r.duplicate).length
  // The store made the waiting runs claimable now; if this engine drives runs, take them.
  if (delivered > 0) deps.driver.wake(clock.now())
  const started = await starting
  if ('error' in started) throw started.error
  return { eventId, delivered, started: started.runs, batched: batches }
}

/** Waits whose run has ended (a cancelled run leaves its registrations behind) are removed. */
async function forgetEnded(
  deps: EventPublisherDeps,
  waits: readonly EventWaitRecord[],
  results: readonly OpResult[],
): Promise<void> {
  const ended = waits.filter((_, i) => {
    const status = results[i]?.status
    return status === 'terminal' || status === 'not_found'
  })
  if (ended.length > 0) await deps.options.store.removeEventWaits(ended)
}
