/**
 * engine.getStepLogs: what steps logged and reported (contracts/step_logs.ts), per position,
 * decoded for people and dashboards: times as Dates, fields through the engine's codec. A
 * field text the codec cannot read (written by another codec) is shown as its text.
 */
import type { Codec } from '../contracts/codec.ts'
import type { StateStore } from '../contracts/state_store.ts'
import type {
  StepLogEntry,
  StepLogLevel,
  StepLogPage,
  StepLogRecord,
  StepProgressRecord,
} from '../contracts/step_logs.ts'

export interface StepLogLine {
  at: Date
  level: StepLogLevel
  attempt: number
  message: string
  /** The fields given with the line, decoded; undefined when none were given. */
  fields: unknown
  /** The message was cut, or the fields left out (too large or not encodable). */
  truncated: boolean
}

export interface StepProgressInfo {
  at: Date
  attempt: number
  /** In [0, 1]; null when reported as `{ done, total: 0 }`. */
  fraction: number | null
  done: number | null
  total: number | null
}

export interface StepLogInfo {
  seq: number
  /** The step's name; null when only a remote worker's heartbeat has reported so far. */
  name: string | null
  /** Oldest first, across attempts. */
  lines: StepLogLine[]
  /** Lines logged but not kept (past `stepLogs.maxEntries`, oldest first). */
  dropped: number
  progress: StepProgressInfo | null
  updatedAt: Date
}

export async function readStepLogs(
  store: StateStore,
  codec: Codec,
  runId: string,
  page: StepLogPage,
): Promise<StepLogInfo[]> {
  const records = await store.loadStepLogs(runId, page)
  return records.map((record) => toStepLogInfo(record, codec))
}

export function toStepLogInfo(record: StepLogRecord, codec: Codec): StepLogInfo {
  return {
    seq: record.seq,
    name: record.name,
    lines: record.entries.map((entry) => toLine(entry, codec)),
    dropped: record.dropped,
    progress: record.progress === null ? null : toProgress(record.progress),
    updatedAt: new Date(record.updatedAt),
  }
}

function toLine(entry: StepLogEntry, codec: Codec): StepLogLine {
  return {
    at: new Date(entry.at),
    level: entry.level,
    attempt: entry.attempt,
    message: entry.message,
    fields: entry.fields === undefined ? undefined : decodeFields(entry.fields, codec),
    truncated: entry.truncated === true,
  }
}

function decodeFields(text: string, codec: Codec): unknown {
  try {
    return codec.decode(text)
  } catch {
    return text
  }
}

function toProgress(progress: StepProgressRecord): StepProgressInfo {
  return {
    at: new Date(progress.at),
    attempt: progress.attempt,
    fraction: progress.fraction,
    done: progress.done ?? null,
    total: progress.total ?? null,
  }
}
