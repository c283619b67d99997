/**
 * Puts a recorded run into a fresh store, exactly as its history says, ready for an engine to
 * claim and replay: the run (same id, input and creation time) with every checkpoint at its
 * position.
 *
 * Why not `CreateRunOp.seed`: a seed takes only delivered outcomes (`completed`/`failed` with
 * an order), at most 10 000 — a fork's copy. A history also holds open waits (a pending sleep,
 * a child or a signal wait with a timeout, a step between retries), whose identity a replay
 * checks too. So the run is created leased by a seeder, every checkpoint is saved under that
 * lease as a turn would save it, and the lease is handed back: the run is claimable at once,
 * and its claim (the second) reads the whole history.
 *
 * The parent link, the predecessor and the queue are left out: the replayed run is on its own
 * (a child's outcome goes to no parent, a successor waits for no predecessor).
 */
import type { CheckpointRecord } from '../contracts/records.ts'
import type { Fence, OpResult, StateStore, StoreOp } from '../contracts/state_store.ts'
import type { RecordedHistory } from '../engine/history_export.ts'
import { InvalidArgumentError } from '../errors/index.ts'

const SEEDER = 'cairn-replay-seeder'
/** Checkpoints per write: a long history is saved in batches. */
const BATCH = 500

/** The workflow key the replay runs the history under. */
export interface ReplayKey {
  workflow: string
  version: string
}

/** Create the recorded run in `store`, claimable at `run.createdAt`. */
export async function seedRecordedRun(
  store: StateStore,
  history: RecordedHistory,
  key: ReplayKey,
): Promise<void> {
  const { run } = history
  const now = run.createdAt
  const [created] = await store.applyBatch(
    [
      {
        type: 'createRun',
        run: { id: run.id, ...key, input: run.input, createdAt: now },
        claim: { owner: SEEDER, leaseMs: 60_000 },
      },
    ],
    now,
  )
  const fence: Fence = { runId: run.id, epoch: appliedEpoch(created) }
  for (let i = 0; i < history.checkpoints.length; i += BATCH) {
    const ops = history.checkpoints.slice(i, i + BATCH).map((record): StoreOp => ({
      type: 'saveCheckpoint',
      fence,
      checkpoint: asStored(record, run.id),
    }))
    const results = await store.applyBatch(ops, now)
    results.forEach((result, j) =>
      checkSaved(result, history.checkpoints[i + j] as CheckpointRecord),
    )
  }
  await store.applyBatch([{ type: 'releaseRun', fence, availableAt: now }], now)
}

function appliedEpoch(result: OpResult | undefined): number {
  if (result?.status === 'applied' && typeof result.epoch === 'number') return result.epoch
  throw new InvalidArgumentError(`replay: could not create the recorded run (${result?.status})`)
}

/** Only the fields a checkpoint has (a fixture may carry others), under the seeded run's id. */
function asStored(record: CheckpointRecord, runId: string): CheckpointRecord {
  return {
    runId,
    seq: record.seq,
    name: record.name,
    kind: record.kind,
    status: record.status,
    attempts: record.attempts,
    order: record.order,
    input: record.input ?? null,
    output: record.output ?? null,
    error: record.error ?? null,
    wakeAt: record.wakeAt ?? null,
    startedAt: record.startedAt,
    updatedAt: record.updatedAt,
    worker: record.worker ?? null,
  }
}

/** Two checkpoints at one position: the history is not one a run could have written. */
function checkSaved(result: OpResult, record: CheckpointRecord): void {
  if (result.status === 'applied') return
  throw new InvalidArgumentError(
    `not a recorded history: checkpoint at seq ${record.seq} could not be placed (${result.status})`,
  )
}
