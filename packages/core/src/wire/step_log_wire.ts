/**
 * A remote step's lines on the wire: a heartbeat or a result carries `logs`, the JSON text of
 * `{ entries, progress? }` — the worker's StepLogBuffer's pending lines for the attempt
 * (contracts/step_logs.ts), numbered by the worker. The engine names the execution after the
 * task and the worker, so a task redelivered to another worker numbers its lines anew.
 */
import { createHash } from 'node:crypto'
import type { StepLogAppend } from '../contracts/step_logs.ts'
import { checkStepLogAppend } from '../step_logs/step_log_rules.ts'
import type { HeartbeatMessage, ResultMessage } from './messages.ts'

/** The `logs` field of a worker's report: its pending lines, or undefined when none wait. */
export function wireLogs(pending: StepLogAppend | null): string | undefined {
  if (pending === null) return undefined
  const { entries, progress } = pending
  return JSON.stringify(progress === undefined ? { entries } : { entries, progress })
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
    const body = JSON.parse(report.logs) as { entries?: unknown; progress?: unknown }
    const append = {
      runId: report.runId,
      seq: report.seq,
      execution: executionOf(report.taskId, report.workerId),
      entries: body?.entries,
      ...(body?.progress === undefined ? {} : { progress: body.progress }),
      maxEntries,
    }
    return checkStepLogAppend(append, `the logs of task ${report.taskId}`)
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error))
  }
}

function executionOf(taskId: string, workerId: string): string {
  const digest = createHash('sha256').update(`${taskId}\u0000${workerId}`).digest('base64url')
  return `w:${digest}`
}
