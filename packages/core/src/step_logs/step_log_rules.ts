/**
 * Step logs (contracts/step_logs.ts): what every store refuses (E_INVALID_ARGUMENT), and the
 * merge every store applies — written once, so a position's record is the same on every store.
 *
 * A record is kept as one JSON text (`StepLogDocument`): the entries, the dropped count, the
 * newest progress, and per execution the highest entry and progress numbers merged (`marks`,
 * the newest MAX_EXECUTION_MARKS executions: an execution older than that sending again — an
 * attempt abandoned 64 executions ago whose code still logs — has its lines merged again).
 * Bounded twice: at most `maxEntries` lines, and at most MAX_STEP_LOG_RECORD_CHARS of line
 * text (messages and fields) — the oldest go first, counted as dropped.
 */
import type {
  StepLogAppend,
  StepLogEntry,
  StepLogPage,
  StepLogRecord,
  StepProgressRecord,
} from '../contracts/index.ts'
import { InvalidArgumentError } from '../errors/index.ts'
import { MAX_TIME_MS } from '../util/numbers.ts'

/** Most entries a position keeps (the largest `maxEntries`). */
export const MAX_STEP_LOG_ENTRIES = 1000
/** Default `maxEntries`: the engine's `stepLogs.maxEntries`. */
export const DEFAULT_STEP_LOG_ENTRIES = 200
/** Most entries one append carries: a whole record's worth, so no producer holds more. */
export const MAX_STEP_LOG_APPEND = MAX_STEP_LOG_ENTRIES
/**
 * Most line text (messages and fields, in characters) a record keeps: what bounds a record's
 * size whatever its lines hold (1,000 lines of the longest messages and fields would be 20 MB).
 */
export const MAX_STEP_LOG_RECORD_CHARS = 1_000_000
/** Most appends one appendStepLogs call takes. */
export const MAX_STEP_LOG_APPENDS = 100
/** Longest message kept (characters); a producer cuts a longer one and sets `truncated`. */
export const MAX_STEP_LOG_MESSAGE = 4096
/** Longest fields text kept (characters); a producer leaves larger fields out (`truncated`). */
export const MAX_STEP_LOG_FIELDS = 16_384
/** Longest execution name. */
export const MAX_EXECUTION_LENGTH = 200
/** Longest step name an append carries. */
export const MAX_STEP_NAME_LENGTH = 1000
/** Executions whose numbering a record remembers. */
export const MAX_EXECUTION_MARKS = 64

const LEVELS = new Set(['info', 'warn', 'error'])

/** What a store keeps for a position: JSON text of this. */
export interface StepLogDocument {
  /** The step's name (StepLogAppend.name), once an append gave it. */
  name?: string
  entries: StepLogEntry[]
  dropped: number
  progress: StepProgressRecord | null
  /** [execution, highest entry number merged (-1: none), highest progress number (-1)]. */
  marks: [string, number, number][]
}

export function checkStepLogAppends(appends: unknown): readonly StepLogAppend[] {
  if (!Array.isArray(appends) || appends.length > MAX_STEP_LOG_APPENDS)
    throw new InvalidArgumentError(
      `appendStepLogs: appends is an array of at most ${MAX_STEP_LOG_APPENDS} appends`,
    )
  for (const append of appends) checkStepLogAppend(append, 'appendStepLogs')
  return appends as readonly StepLogAppend[]
}

/** Checks one append; `where` names the call in the error. */
export function checkStepLogAppend(append: unknown, where: string): StepLogAppend {
  if (append === null || typeof append !== 'object' || Array.isArray(append))
    throw invalid(
      `${where}: an append is { runId, seq, execution, entries, progress?, maxEntries }`,
    )
  const a = append as Record<string, unknown>
  if (typeof a.runId !== 'string' || a.runId.length === 0 || a.runId.length > 255)
    throw invalid(`${where}: runId is a string of 1..255 characters`)
  if (!isInteger(a.seq, 0, Number.MAX_SAFE_INTEGER))
    throw invalid(`${where}: seq is a non-negative integer`)
  if (
    typeof a.execution !== 'string' ||
    a.execution.length === 0 ||
    a.execution.length > MAX_EXECUTION_LENGTH
  )
    throw invalid(`${where}: execution is a string of 1..${MAX_EXECUTION_LENGTH} characters`)
  if (
    a.name !== undefined &&
    (typeof a.name !== 'string' || a.name.length === 0 || a.name.length > MAX_STEP_NAME_LENGTH)
  )
    throw invalid(`${where}: name is a string of 1..${MAX_STEP_NAME_LENGTH} characters`)
  if (!isInteger(a.maxEntries, 1, MAX_STEP_LOG_ENTRIES))
    throw invalid(`${where}: maxEntries is an integer 1..${MAX_STEP_LOG_ENTRIES}`)
  checkEntries(a.entries, where)
  if (a.progress !== undefined) checkProgress(a.progress, where)
  return append as StepLogAppend
}

function checkEntries(entries: unknown, where: string): void {
  if (!Array.isArray(entries) || entries.length > MAX_STEP_LOG_APPEND)
    throw invalid(`${where}: entries is an array of at most ${MAX_STEP_LOG_APPEND} entries`)
  let previous = -1
  for (const entry of entries as unknown[]) {
    const e = objectOf(entry, `${where}: an entry is { i, at, level, attempt, message, fields? }`)
    if (!isInteger(e.i, 0, Number.MAX_SAFE_INTEGER) || e.i <= previous)
      throw invalid(`${where}: entry numbers (i) are non-negative integers, strictly increasing`)
    previous = e.i
    if (!isInteger(e.at, 0, MAX_TIME_MS)) throw invalid(`${where}: an entry's at is a time (ms)`)
    if (typeof e.level !== 'string' || !LEVELS.has(e.level))
      throw invalid(`${where}: an entry's level is info, warn or error`)
    if (!isInteger(e.attempt, 1, Number.MAX_SAFE_INTEGER))
      throw invalid(`${where}: an entry's attempt is a positive integer`)
    if (typeof e.message !== 'string' || e.message.length > MAX_STEP_LOG_MESSAGE)
      throw invalid(`${where}: an entry's message is a string of at most ${MAX_STEP_LOG_MESSAGE}`)
    if (
      e.fields !== undefined &&
      (typeof e.fields !== 'string' || e.fields.length > MAX_STEP_LOG_FIELDS)
    )
      throw invalid(`${where}: an entry's fields is text of at most ${MAX_STEP_LOG_FIELDS}`)
    if (e.truncated !== undefined && e.truncated !== true)
      throw invalid(`${where}: an entry's truncated is true or absent`)
  }
}

function checkProgress(progress: unknown, where: string): void {
  const p = objectOf(progress, `${where}: progress is { p, at, attempt, fraction, done?, total? }`)
  if (!isInteger(p.p, 0, Number.MAX_SAFE_INTEGER))
    throw invalid(`${where}: progress.p is a non-negative integer`)
  if (!isInteger(p.at, 0, MAX_TIME_MS)) throw invalid(`${where}: progress.at is a time (ms)`)
  if (!isInteger(p.attempt, 1, Number.MAX_SAFE_INTEGER))
    throw invalid(`${where}: progress.attempt is a positive integer`)
  const fraction = p.fraction
  if (fraction !== null && !(typeof fraction === 'number' && fraction >= 0 && fraction <= 1))
    throw invalid(`${where}: progress.fraction is a number in [0, 1] or null`)
  for (const name of ['done', 'total'] as const) {
    const value = p[name]
    if (value !== undefined && !(typeof value === 'number' && Number.isFinite(value) && value >= 0))
      throw invalid(`${where}: progress.${name} is a finite number >= 0`)
  }
}

/** loadStepLogs' page: the rules of loadCheckpointPage (fromSeq >= 0, limit 1..1000). */
export function checkStepLogPage(page: StepLogPage): StepLogPage {
  const { fromSeq, limit } = (page ?? {}) as Partial<StepLogPage>
  if (!Number.isSafeInteger(fromSeq) || (fromSeq as number) < 0)
    throw invalid(
      `loadStepLogs: fromSeq must be a non-negative safe integer, got ${String(fromSeq)}`,
    )
  if (!Number.isInteger(limit) || (limit as number) < 1 || (limit as number) > 1000)
    throw invalid(`loadStepLogs: limit must be an integer in 1..1000, got ${String(limit)}`)
  const { updatedFrom } = page
  if (updatedFrom !== undefined && !Number.isSafeInteger(updatedFrom))
    throw invalid(
      `loadStepLogs: updatedFrom must be a safe integer (ms), got ${String(updatedFrom)}`,
    )
  return page
}

/** The empty record a position starts from. */
export function emptyStepLogDocument(): StepLogDocument {
  return { entries: [], dropped: 0, progress: null, marks: [] }
}

/**
 * Parses a stored record; a text this module did not write (edited by hand, cut short) reads
 * as an empty record with everything counted as dropped rather than failing every read.
 */
export function parseStepLogDocument(text: string | null): StepLogDocument {
  if (text === null) return emptyStepLogDocument()
  try {
    const doc = JSON.parse(text) as StepLogDocument
    if (Array.isArray(doc.entries) && Array.isArray(doc.marks) && typeof doc.dropped === 'number')
      return doc
  } catch {
    // falls through
  }
  return emptyStepLogDocument()
}

/**
 * `doc` with `append` merged (changed in place, and returned): entries an execution sent
 * before are skipped, numbers it skipped count as dropped, then the oldest entries past
 * `maxEntries` are dropped; the progress replaces the stored one unless this execution sent
 * it (or a newer one) before.
 */
export function mergeStepLogs(doc: StepLogDocument, append: StepLogAppend): StepLogDocument {
  const mark = markOf(doc, append.execution)
  if (append.name !== undefined) doc.name = append.name
  for (const entry of append.entries) {
    if (entry.i <= mark[1]) continue
    doc.dropped += entry.i - mark[1] - 1
    mark[1] = entry.i
    doc.entries.push(copyEntry(entry))
  }
  const progress = append.progress
  if (progress !== undefined && progress.p > mark[2]) {
    mark[2] = progress.p
    if (doc.progress === null || !olderProgress(progress, doc.progress))
      doc.progress = copyProgress(progress)
  }
  const over = Math.max(doc.entries.length - append.maxEntries, overBudget(doc.entries))
  if (over > 0) {
    doc.entries.splice(0, over)
    doc.dropped += over
  }
  return doc
}

/**
 * A report of an earlier attempt, or of the same attempt made before the stored one (another
 * execution of it, whose code was abandoned): it must not hide the newest.
 */
function olderProgress(incoming: StepProgressRecord, stored: StepProgressRecord): boolean {
  return (
    incoming.attempt < stored.attempt ||
    (incoming.attempt === stored.attempt && incoming.at < stored.at)
  )
}

/** How many of the oldest entries to drop to bring the line text within its budget. */
function overBudget(entries: readonly StepLogEntry[]): number {
  let chars = 0
  for (const entry of entries) chars += lineChars(entry)
  let drop = 0
  while (chars > MAX_STEP_LOG_RECORD_CHARS && drop < entries.length)
    chars -= lineChars(entries[drop++] as StepLogEntry)
  return drop
}

function lineChars(entry: StepLogEntry): number {
  return entry.message.length + (entry.fields?.length ?? 0)
}

function copyProgress(progress: StepProgressRecord): StepProgressRecord {
  const { p, at, attempt, fraction, done, total } = progress
  return {
    p,
    at,
    attempt,
    fraction,
    ...(done === undefined ? {} : { done }),
    ...(total === undefined ? {} : { total }),
  }
}

/** The record as StateStore.loadStepLogs returns it. */
export function stepLogRecord(
  runId: string,
  seq: number,
  text: string | null,
  updatedAt: number,
): StepLogRecord {
  const doc = parseStepLogDocument(text)
  const { entries, dropped, progress } = doc
  return { runId, seq, name: doc.name ?? null, entries, dropped, progress, updatedAt }
}

/** This execution's mark, created (and the oldest forgotten past the bound) on first use. */
function markOf(doc: StepLogDocument, execution: string): [string, number, number] {
  const found = doc.marks.find((mark) => mark[0] === execution)
  if (found !== undefined) return found
  const mark: [string, number, number] = [execution, -1, -1]
  doc.marks.push(mark)
  if (doc.marks.length > MAX_EXECUTION_MARKS) doc.marks.shift()
  return mark
}

function copyEntry(entry: StepLogEntry): StepLogEntry {
  const { i, at, level, attempt, message, fields, truncated } = entry
  return {
    i,
    at,
    level,
    attempt,
    message,
    ...(fields === undefined ? {} : { fields }),
    ...(truncated === true ? { truncated } : {}),
  }
}

function objectOf(value: unknown, message: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalid(message)
  return value as Record<string, unknown>
}

function isInteger(value: unknown, min: number, max: number): value is number {
  return Number.isSafeInteger(value) && (value as number) >= min && (value as number) <= max
}

function invalid(message: string): InvalidArgumentError {
  return new InvalidArgumentError(message)
}

/** A saveCheckpoint's `logs`: a well-formed append for the checkpoint's own position. */
export function checkCheckpointLogs(op: {
  checkpoint: { runId: string; seq: number }
  logs?: StepLogAppend
}): void {
  if (op.logs === undefined) return
  checkStepLogAppend(op.logs, 'saveCheckpoint.logs')
  if (op.logs.runId !== op.checkpoint.runId || op.logs.seq !== op.checkpoint.seq)
    throw invalid('saveCheckpoint.logs: runId and seq are the checkpoint’s own')
}
