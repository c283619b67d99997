/**
 * A wire task for tests of transports and workers: the first attempt of position 0 of `runId`,
 * with no requirements and no timeout — the fields a test cares about given, the rest the
 * usual ones.
 */
import { taskIdOf, type TaskMessage } from '../wire/index.ts'

export interface FirstAttemptTask {
  runId: string
  step: string
  /** The encoded input. Default 'null'. */
  input?: string
  /** Default 5,000 ms. */
  heartbeatIntervalMs?: number
}

export function firstAttemptTask(task: FirstAttemptTask): TaskMessage {
  const { runId, step, input = 'null', heartbeatIntervalMs = 5_000 } = task
  return {
    v: 1,
    type: 'task',
    taskId: taskIdOf({ runId, seq: 0, attempt: 1 }),
    runId,
    seq: 0,
    attempt: 1,
    step,
    input,
    requires: [],
    timeoutMs: null,
    heartbeatIntervalMs,
    dispatchedAt: Date.now(),
  }
}
