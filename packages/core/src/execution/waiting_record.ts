/**
 * The checkpoint a durable wait leaves at its position when the run suspends: a sleep's due
 * time, a signal wait's deadline, a breakpoint. It fixes the wait's times across restarts and
 * tells operators (and `engine.continue`) what the run waits on.
 */
import type { CheckpointKind, CheckpointRecord } from '../contracts/records.ts'

export interface WaitingAt {
  runId: string
  seq: number
  name: string
  kind: CheckpointKind
  /** Due time or deadline; null when only a message ends the wait. */
  wakeAt: number | null
  startedAt: number
}

export function waitingRecord(wait: WaitingAt): CheckpointRecord {
  return {
    runId: wait.runId,
    seq: wait.seq,
    name: wait.name,
    kind: wait.kind,
    status: 'waiting',
    attempts: 1,
    order: null,
    input: null,
    output: null,
    error: null,
    wakeAt: wait.wakeAt,
    startedAt: wait.startedAt,
    updatedAt: wait.startedAt,
    worker: null,
  }
}
