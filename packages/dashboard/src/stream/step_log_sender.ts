/**
 * The `event: logs` part of a run's stream: the log records (api/step_log_views.ts) that
 * changed since they were last sent, batched as `{ logs: StepLogView[] }`. The engine emits no
 * event when a step's lines are written, so every refresh (engine event or poll) asks the
 * store for the records changed since the previous read began (`updatedFrom`: unchanged
 * records are not read at all) — whatever the position's step is doing: a settled step's
 * record still changes when code the step left running logs later.
 *
 * `updatedAt` is the clock of the engine that wrote the record, the previous read's start this
 * engine's clock: the read reaches back CLOCK_SKEW_MS before it, so a writer whose clock runs
 * behind by less than that is not missed; a record is re-read at most that long (plus one
 * refresh) after it changed, and sent only if it differs from what the client has. A read that
 * fails leaves the mark where it was: the next refresh reads again.
 */
import type { Engine, StepLogInfo } from '@cairn/core'
import { stepLogView } from '../api/step_log_views.ts'
import type { SseChannel } from './sse_channel.ts'

/** Records per read and per event: a record may hold up to 1,000 lines. */
const LOG_PAGE = 50
/** How far behind another engine's clock may run without its lines being missed. */
export const CLOCK_SKEW_MS = 2_000

/** Positions `from` (inclusive) to `to` (exclusive; Infinity: to the end). */
export interface PositionRange {
  from: number
  to: number
}

export class StepLogSender {
  /** What the client has of each record. */
  private readonly sent = new Map<number, string>()
  /** When the last complete pass began (this engine's clock); null before the first. */
  private since: number | null = null

  /** Sends the records of `range` that changed since last sent. Rejects when a read fails. */
  async send(engine: Engine, runId: string, range: PositionRange, channel: SseChannel) {
    const began = engine.options.clock.now()
    const updatedFrom = this.since === null ? undefined : this.since - CLOCK_SKEW_MS
    for (let fromSeq = range.from; fromSeq < range.to;) {
      const limit = Math.min(LOG_PAGE, range.to - fromSeq)
      const page = updatedFrom === undefined ? { fromSeq, limit } : { fromSeq, limit, updatedFrom }
      const records = await engine.getStepLogs(runId, page)
      const changed = records.filter((record) => this.changed(record))
      if (changed.length > 0) await channel.send('logs', { logs: changed.map(stepLogView) })
      const last = records[records.length - 1]
      if (records.length < limit || last === undefined) break
      fromSeq = last.seq + 1
    }
    // Only a complete pass moves the mark: a failed read above rejects before it.
    this.since = began
  }

  /**
   * Whether the record differs from what was sent (and if so, remembers it as sent).
   * `updatedAt` alone would miss two appends within one millisecond of the engine's clock (or
   * a fake clock standing still), so what an append changes is compared too.
   */
  private changed(record: StepLogInfo): boolean {
    const progress = record.progress
    const fingerprint = [
      record.updatedAt.getTime(),
      record.lines.length,
      record.dropped,
      record.lines[record.lines.length - 1]?.at.getTime(),
      progress?.at.getTime(),
      progress?.attempt,
      progress?.fraction,
      progress?.done,
      progress?.total,
      record.name,
    ].join('|')
    if (this.sent.get(record.seq) === fingerprint) return false
    this.sent.set(record.seq, fingerprint)
    return true
  }
}
