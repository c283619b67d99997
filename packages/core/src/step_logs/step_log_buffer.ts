/**
 * What one execution of a step attempt logged and has not yet seen stored (contracts/
 * step_logs.ts): its lines, numbered 0, 1, … and encoded as the store keeps them, and its
 * newest progress. Shared by the engine (in-process steps) and `@cairn/worker` (remote
 * steps): the one place a line is cut to size and its fields encoded.
 *
 * Bounded: at most `maxEntries` lines wait; past it the oldest waiting line goes, and the
 * store counts its number as dropped. `pending()` is everything not yet acknowledged —
 * a producer sends it (live, or with the outcome) and acknowledges what a write stored;
 * sending a line twice is harmless (the store merges each number once).
 */
import type { Codec } from '../contracts/codec.ts'
import type {
  StepLogAppend,
  StepLogEntry,
  StepLogLevel,
  StepProgressRecord,
} from '../contracts/step_logs.ts'
import { InvalidArgumentError } from '../errors/index.ts'
import type { StepProgress } from '../execution/types.ts'
import { MAX_STEP_LOG_FIELDS, MAX_STEP_LOG_MESSAGE } from './step_log_rules.ts'

export interface StepLogBufferOptions {
  runId: string
  seq: number
  /** The step's name, sent with the lines when known. */
  name?: string
  /** Who produces the lines (contracts/step_logs.ts): numbering is per execution. */
  execution: string
  attempt: number
  maxEntries: number
  codec: Codec
  /** Epoch ms for each line's `at`. */
  now: () => number
  /** Told after each line or progress report (a producer arms its flush). */
  onChange?: () => void
}

export class StepLogBuffer {
  readonly #o: StepLogBufferOptions
  #entries: StepLogEntry[] = []
  #nextI = 0
  #progress: StepProgressRecord | null = null
  #nextP = 0
  #progressSent = -1

  constructor(options: StepLogBufferOptions) {
    this.#o = options
  }

  /**
   * Adds a line, and returns it as kept (message made a string and cut to size); never throws
   * (a logger must not break the step that calls it).
   */
  add(level: StepLogLevel, message: unknown, fields: unknown): StepLogEntry {
    const entry = this.#entry(level, message, fields)
    this.#entries.push(entry)
    if (this.#entries.length > this.#o.maxEntries) this.#entries.shift()
    this.#o.onChange?.()
    return entry
  }

  /** Records the step's progress; E_INVALID_ARGUMENT for a value outside the rules. */
  progress(value: StepProgress): void {
    const counts = toCounts(value)
    this.#progress = {
      p: this.#nextP++,
      at: this.#o.now(),
      attempt: this.#o.attempt,
      ...counts,
    }
    this.#o.onChange?.()
  }

  /** Lines or a progress report not yet acknowledged. */
  get hasPending(): boolean {
    return this.#entries.length > 0 || this.#unsentProgress() !== null
  }

  /** Everything not yet acknowledged, as an append; null when nothing waits. */
  pending(): StepLogAppend | null {
    if (!this.hasPending) return null
    const progress = this.#unsentProgress()
    return {
      runId: this.#o.runId,
      seq: this.#o.seq,
      execution: this.#o.execution,
      ...(this.#o.name === undefined ? {} : { name: this.#o.name }),
      entries: [...this.#entries],
      ...(progress === null ? {} : { progress }),
      maxEntries: this.#o.maxEntries,
    }
  }

  /** `sent` is stored: its lines (and progress) need not be sent again. */
  acknowledge(sent: StepLogAppend): void {
    const last = sent.entries[sent.entries.length - 1]
    if (last !== undefined) this.#entries = this.#entries.filter((entry) => entry.i > last.i)
    if (sent.progress !== undefined)
      this.#progressSent = Math.max(this.#progressSent, sent.progress.p)
  }

  #unsentProgress(): StepProgressRecord | null {
    const progress = this.#progress
    return progress !== null && progress.p > this.#progressSent ? progress : null
  }

  #entry(level: StepLogLevel, message: unknown, fields: unknown): StepLogEntry {
    const text = typeof message === 'string' ? message : safeString(message)
    const entry: StepLogEntry = {
      i: this.#nextI++,
      at: this.#o.now(),
      level,
      attempt: this.#o.attempt,
      message: text.length > MAX_STEP_LOG_MESSAGE ? cut(text) : text,
    }
    if (text.length > MAX_STEP_LOG_MESSAGE) entry.truncated = true
    if (fields === undefined) return entry
    const encoded = this.#encodeFields(fields)
    if (encoded === null) entry.truncated = true
    else entry.fields = encoded
    return entry
  }

  /** The fields as codec text, or null when they cannot be kept (not encodable, too large). */
  #encodeFields(fields: unknown): string | null {
    try {
      const text = this.#o.codec.encode(fields, 'step log fields')
      return text.length > MAX_STEP_LOG_FIELDS ? null : text
    } catch {
      return null
    }
  }
}

/** A cut that never leaves half of a surrogate pair at its end. */
function cut(text: string): string {
  let end = MAX_STEP_LOG_MESSAGE
  const last = text.charCodeAt(end - 1)
  if (last >= 0xd800 && last <= 0xdbff) end -= 1
  return text.slice(0, end)
}

function safeString(value: unknown): string {
  try {
    return String(value)
  } catch {
    return Object.prototype.toString.call(value)
  }
}

function toCounts(value: StepProgress): Pick<StepProgressRecord, 'fraction' | 'done' | 'total'> {
  if (typeof value === 'number') {
    if (value >= 0 && value <= 1) return { fraction: value }
    throw new InvalidArgumentError(
      `stepCtx.progress: a fraction must be a number in [0, 1], got ${String(value)}`,
    )
  }
  const { done, total } = (value ?? {}) as { done?: unknown; total?: unknown }
  if (!isCount(done) || !isCount(total))
    throw new InvalidArgumentError(
      'stepCtx.progress: give a fraction in [0, 1] or { done, total } (finite numbers >= 0)',
    )
  const fraction = total === 0 ? null : Math.min(1, done / total)
  return { fraction, done, total }
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0
}
