/**
 * What the API returns for a position's log lines and progress (engine.getStepLogs): times as
 * ISO strings, fields as JSON values by the same rules as payloads (json_value.ts), since a
 * step may log a Date, a Map or a bigint among its fields.
 */
import type { StepLogInfo, StepLogLine, StepProgressInfo } from '@cairn/core'
import { toJsonValue } from './json_value.ts'

export interface StepLogLineView {
  at: string
  level: string
  attempt: number
  message: string
  /** The fields logged with the line as JSON; null when none were given. */
  fields: unknown
  /** The message was cut, or the fields left out (too large or not encodable). */
  truncated: boolean
}

export interface StepProgressView {
  at: string
  attempt: number
  /** In [0, 1]; null when reported as `{ done, total: 0 }`. */
  fraction: number | null
  done: number | null
  total: number | null
}

export interface StepLogView {
  seq: number
  /** The step's name, when known (a remote step's heartbeat does not say it). */
  name: string | null
  /** Oldest first, across attempts. */
  lines: StepLogLineView[]
  /** Lines logged but not kept (past the engine's `stepLogs.maxEntries`, oldest first). */
  dropped: number
  progress: StepProgressView | null
  updatedAt: string
}

export function stepLogView(info: StepLogInfo): StepLogView {
  return {
    seq: info.seq,
    name: info.name,
    lines: info.lines.map(lineView),
    dropped: info.dropped,
    progress: info.progress === null ? null : progressView(info.progress),
    updatedAt: info.updatedAt.toISOString(),
  }
}

function lineView(line: StepLogLine): StepLogLineView {
  return {
    at: line.at.toISOString(),
    level: line.level,
    attempt: line.attempt,
    message: line.message,
    fields: line.fields === undefined ? null : toJsonValue(line.fields),
    truncated: line.truncated,
  }
}

function progressView(progress: StepProgressInfo): StepProgressView {
  return {
    at: progress.at.toISOString(),
    attempt: progress.attempt,
    fraction: progress.fraction,
    done: progress.done,
    total: progress.total,
  }
}

/** Most characters of records one `api/runs/:id/logs` page carries (at least one record). */
export const LOGS_PAGE_CHARS = 4_000_000

/**
 * A page of `api/runs/:id/logs`: the records in order until LOGS_PAGE_CHARS (the first one
 * always); `nextFromSeq` where the next page starts when this one was cut or full, else null.
 */
export function logsPage(
  records: readonly StepLogInfo[],
  limit: number,
): { logs: StepLogView[]; nextFromSeq: number | null } {
  const logs: StepLogView[] = []
  let chars = 0
  for (const record of records) {
    const view = stepLogView(record)
    chars += JSON.stringify(view).length
    if (logs.length > 0 && chars > LOGS_PAGE_CHARS) return { logs, nextFromSeq: record.seq }
    logs.push(view)
  }
  const last = records[records.length - 1]
  return { logs, nextFromSeq: records.length === limit && last !== undefined ? last.seq + 1 : null }
}
