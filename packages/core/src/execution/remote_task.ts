/**
 * The pieces of a remote step that are about the wire, not the wait: the task message an
 * attempt sends, the inbox name its result arrives under, and a worker's reported error turned
 * back into an Error the retry policy can judge.
 */
import type { Codec, SerializedError } from '../contracts/codec.ts'
import { deserializeError } from '../codec/index.ts'
import { RESERVED_PREFIX } from './wait_names.ts'
import { taskIdOf, type TaskMessage, type WireError } from '../wire/index.ts'

/** The inbox name a remote step's results arrive under (reserved: no user signal has it). */
export function taskResultName(seq: number): string {
  return `${RESERVED_PREFIX}task:${seq}`
}

/** The inbox dedupe id of a result: one acceptance per attempt, however often it is delivered. */
export function taskResultDedupeId(taskId: string): string {
  return `${RESERVED_PREFIX}task:${taskId}`
}

export interface TaskFields {
  runId: string
  seq: number
  attempt: number
  step: string
  requires: readonly string[]
  input: string
  timeoutMs: number | null
  heartbeatIntervalMs: number
  dispatchedAt: number
}

export function taskMessage(fields: TaskFields): TaskMessage {
  return {
    v: 1,
    type: 'task',
    taskId: taskIdOf(fields),
    runId: fields.runId,
    seq: fields.seq,
    attempt: fields.attempt,
    step: fields.step,
    input: fields.input,
    requires: [...fields.requires],
    timeoutMs: fields.timeoutMs,
    heartbeatIntervalMs: fields.heartbeatIntervalMs,
    dispatchedAt: fields.dispatchedAt,
  }
}

/** A reported error as an Error: the worker's whole error when it sent one the codec reads. */
export function errorFromWire(error: WireError, codec: Codec): Error {
  const rebuilt = error.detail === undefined ? null : fromDetail(error.detail, codec)
  const result = rebuilt ?? Object.assign(new Error(error.message), { name: error.name })
  if (rebuilt === null) {
    if (error.code !== undefined) Object.assign(result, { code: error.code })
    if (error.stack !== undefined) result.stack = error.stack
  }
  if (error.retryAfterMs !== undefined) Object.assign(result, { retryAfterMs: error.retryAfterMs })
  return result
}

function fromDetail(detail: string, codec: Codec): Error | null {
  try {
    const value = codec.decode(detail) as SerializedError
    if (value === null || typeof value !== 'object' || typeof value.message !== 'string')
      return null
    return deserializeError(value)
  } catch {
    // Another codec (a worker in another language) or a damaged detail: the summary stands.
    return null
  }
}
