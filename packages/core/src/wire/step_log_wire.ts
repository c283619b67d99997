/**
 * A remote step's lines on the wire: a heartbeat or a result carries `logs`, the JSON text of
 * `{ entries, progress?, execution? }` — the worker's StepLogBuffer's lines for the attempt
 * (contracts/step_logs.ts), numbered by the worker, and the worker's id for this execution of
 * the attempt (a fresh one per delivery). The engine names the execution after the task, the
 * worker and that id, so a task delivered again — to another worker or the same one — numbers
 * its lines anew.
 *
 * Every report carries every line the worker still holds, so reports stored out of order lose
 * nothing (a later one holds what an earlier one did), within MAX_WIRE_LOG_CHARS: past it the
 * oldest lines are left out (their numbers count as dropped) — lines never cost a step its
 * outcome by making its result too large.
 */
import { createHash } from 'node:crypto'
import type { StepLogAppend } from '../contracts/step_logs.ts'
import { checkStepLogAppend } from '../step_logs/step_log_rules.ts'
import type { HeartbeatMessage, ResultMessage } from './messages.ts'

/** Most characters of `logs` one report carries. */
export const MAX_WIRE_LOG_CHARS = 256 * 1024

/** Longest execution id a worker sends. */
const MAX_WIRE_EXECUTION = 100

/**
 * The `logs` field of a worker's report: its lines (the newest, within MAX_WIRE_LOG_CHARS) and
 * progress, or undefined when it has none. `execution`: the worker's id for this execution.
 */
export function wireLogs(pending: StepLogAppend | null, execution?: string): string | undefined {
  if (pending === null) return undefined
  const { progress } = pending
  const body = (entries: StepLogAppend['entries']) =>
    JSON.stringify({
      entries,
      ...(progress === undefined ? {} : { progress }),
      ...(execution === undefined ? {} : { execution }),
    })
  let entries = pending.entries
  let text = body(entries)
  while (text.length > MAX_WIRE_LOG_CHARS && entries.length > 0) {
    // Drop the older half of what is over, at least one line: few passes for any size.
    const over = text.length - MAX_WIRE_LOG_CHARS
    const share = Math.ceil((entries.length * over) / text.length)
    entries = entries.slice(Math.max(1, share))
    text = body(entries)
  }
  return text
}

/**
 * The append a report's `logs` stand for, kept at most `maxEntries` lines; null when it has
 * none, and an Error (for the log) when they are malformed — the report itself still counts.
 */
export function appendOfReport(
  report: HeartbeatMessage | ResultMessage,
  maxEntries: number,
): StepLogAppend | Error | null {
  if (report.logs === undefined) return null
  try {
    const body = JSON.parse(report.logs) as {
      entries?: unknown
      progress?: unknown
      execution?: unknown
    }
    const own = body?.execution
    if (own !== undefined && !(typeof own === 'string' && own.length <= MAX_WIRE_EXECUTION))
      throw new Error(`execution must be a string of at most ${MAX_WIRE_EXECUTION} characters`)
    const append = {
      runId: report.runId,
      seq: report.seq,
      execution: executionOf(report.taskId, report.workerId, own ?? ''),
      entries: body?.entries,
      ...(body?.progress === undefined ? {} : { progress: body.progress }),
      maxEntries,
    }
    return checkStepLogAppend(append, `the logs of task ${report.taskId}`)
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error))
  }
}

function executionOf(taskId: string, workerId: string, own: string): string {
  const digest = createHash('sha256')
    .update(`${taskId}\u0000${workerId}\u0000${own}`)
    .digest('base64url')
  return `w:${digest}`
}
