/**
 * Copies between callers and stored state: what goes in is copied so the caller may reuse
 * its objects, what comes out is copied so the caller cannot change the store behind its
 * back. Records are flat, so a copy is one small object; a park reason is frozen once and
 * shared instead.
 */
import type {
  CheckpointRecord,
  InboxMessage,
  ParkReason,
  RunRecord,
} from '../../contracts/index.ts'

export function copyRun(run: RunRecord): RunRecord {
  return {
    ...run,
    tags: [...run.tags],
    origin: run.origin === null ? null : { ...run.origin },
    admission: run.admission === null ? null : { ...run.admission },
  }
}

export function copyMessage(message: InboxMessage): InboxMessage {
  return { ...message }
}

/** Field by field, so a caller's extra properties are not kept (a SQL store would drop them). */
export function copyCheckpoint(checkpoint: CheckpointRecord): CheckpointRecord {
  return {
    runId: checkpoint.runId,
    seq: checkpoint.seq,
    name: checkpoint.name,
    kind: checkpoint.kind,
    status: checkpoint.status,
    attempts: checkpoint.attempts,
    order: checkpoint.order,
    input: checkpoint.input,
    output: checkpoint.output,
    error: checkpoint.error,
    wakeAt: checkpoint.wakeAt,
    startedAt: checkpoint.startedAt,
    updatedAt: checkpoint.updatedAt,
    worker: checkpoint.worker === null ? null : { ...checkpoint.worker },
  }
}

/**
 * The reason as a SQL store would give it back (a JSON round trip), deeply frozen so every
 * copy of the run can share it.
 */
export function freezeReason(reason: ParkReason): ParkReason {
  return deepFreeze(JSON.parse(JSON.stringify(reason)) as ParkReason)
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child)
    Object.freeze(value)
  }
  return value
}
