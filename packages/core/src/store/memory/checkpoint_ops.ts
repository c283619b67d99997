import type {
  CheckpointRecord,
  OpResult,
  SaveCheckpointOp,
  SearchAttributeUpsert,
} from '../../contracts/index.ts'
import { copyCheckpoint } from './copies.ts'
import { APPLIED, fencedResult, maySaveCheckpoint } from './fence.ts'
import { consumeGrants, grantFields } from './queues.ts'
import { mergeInto } from './step_logs.ts'
import type { RunState } from './run_state.ts'
import type { StoreState } from './store_state.ts'

/** The hot path of the engine: keep it to two map lookups and one small copy. */
export function saveCheckpoint(store: StoreState, op: SaveCheckpointOp, now: number): OpResult {
  const state = store.runs.get(op.fence.runId)
  if (!maySaveCheckpoint(state, op.fence)) return fencedResult(state)
  const seq = op.checkpoint.seq
  const existing = state.checkpoints.get(seq)
  // A delivered outcome never changes (I1): the recorded row wins.
  if (existing !== undefined && isSettled(existing)) {
    return { status: 'conflict', existing: copyCheckpoint(existing) }
  }
  state.checkpoints.set(seq, copyCheckpoint(op.checkpoint))
  if (op.consumes !== undefined) state.inbox = state.inbox.filter((m) => m.seq !== op.consumes)
  // An event wait that has its outcome is over: no publisher needs to find it any more.
  if (op.checkpoint.kind === 'event' && isSettled(op.checkpoint)) {
    store.events.remove({ runId: op.fence.runId, seq })
  }
  if (op.searchAttributes !== undefined) upsertAttributes(state, op.searchAttributes)
  if (op.logs !== undefined) mergeInto(state, op.logs, now)
  if (op.release === undefined && op.enqueue === undefined) return APPLIED
  return { status: 'applied', ...queueFields(store, state, op, now) }
}

/** A save's release, then its enqueue: what their grant passes add to its result. */
function queueFields(store: StoreState, state: RunState, op: SaveCheckpointOp, now: number) {
  const { runId, seq } = op.checkpoint
  let released: ReturnType<typeof grantFields> = {}
  if (op.release !== undefined) {
    consumeGrants(state, seq)
    released = grantFields(store.queues.release(store, op.release, runId, seq, now))
  }
  if (op.enqueue === undefined) return released
  const enqueued = store.queues.enqueue(store, runId, seq, op.enqueue, now)
  const fields = grantFields(enqueued)
  const grants = [...(released.grants ?? []), ...(fields.grants ?? [])]
  const throttled = [...(released.throttled ?? []), ...(fields.throttled ?? [])]
  return {
    ...(released.promoted || fields.promoted ? { promoted: true as const } : {}),
    ...(grants.length === 0 ? {} : { grants }),
    ...(throttled.length === 0 ? {} : { throttled }),
    ...(enqueued.own ? { granted: true as const } : {}),
  }
}

function isSettled(checkpoint: CheckpointRecord): boolean {
  return checkpoint.status === 'completed' || checkpoint.status === 'failed'
}

/** Applied with its checkpoint only (the caller returned early otherwise). */
function upsertAttributes(state: RunState, upsert: SearchAttributeUpsert): void {
  for (const [name, value] of Object.entries(upsert)) {
    if (value === null) state.searchAttributes.delete(name)
    else state.searchAttributes.set(name, value instanceof Date ? new Date(value) : value)
  }
}
