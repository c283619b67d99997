/**
 * The `event: logs` part of a run's stream: the log records (api/step_log_views.ts) that
 * changed since they were last sent, batched as `{ logs: StepLogView[] }`. The engine emits
 * no event when a running step flushes its lines, so every refresh (engine event or poll)
 * reads the records again — from the first position whose step may still change: a settled
 * step's record is final (its outcome brought its last lines, and later appends are refused).
 */
import type { Engine, StepLogInfo } from '@cairn/core'
import { stepLogView } from '../api/step_log_views.ts'
import type { SseChannel } from './sse_channel.ts'

/** Records per read and per event: a record may hold thousands of lines. */
const LOG_PAGE = 50

/** Positions `from` (inclusive) to `to` (exclusive; Infinity: to the end). */
export interface PositionRange {
  from: number
  to: number
}

export class StepLogSender {
  /** What the client has of each record. */
  private readonly sent = new Map<number, string>()

  /** Sends the records of `range` that changed since last sent. */
  async send(engine: Engine, runId: string, range: PositionRange, channel: SseChannel) {
    for (let fromSeq = range.from; fromSeq < range.to;) {
      const limit = Math.min(LOG_PAGE, range.to - fromSeq)
      const records = await engine.getStepLogs(runId, { fromSeq, limit })
      const changed = records.filter((record) => this.changed(record))
      if (changed.length > 0) await channel.send('logs', { logs: changed.map(stepLogView) })
      const last = records[records.length - 1]
      if (records.length < limit || last === undefined) return
      fromSeq = last.seq + 1
    }
  }

  /**
   * Whether the record differs from what was sent (and if so, remembers it as sent).
   * `updatedAt` alone would
   * miss two appends within one millisecond of the engine's clock (or a fake clock standing
   * still), so what an append changes is compared too.
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
    ].join('|')
    if (this.sent.get(record.seq) === fingerprint) return false
    this.sent.set(record.seq, fingerprint)
    return true
  }
}
