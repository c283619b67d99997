/**
 * `ctx.breakpoint(label)`: a human in the loop. The run stops here — waiting, holding no lease —
 * until an operator calls `engine.continue(runId)`, and resumes with the operator's note (or
 * undefined). The breakpoint is recorded at its position, so `engine.continue` addresses this
 * very breakpoint: a double click continues it once, and a continue can never leak to a later
 * breakpoint.
 */
import type { TurnRuntime } from './runtime.ts'
import { checkSignalName, continueSignalName } from './wait_names.ts'
import { waitingRecord } from './waiting_record.ts'

export function breakpoint<T = unknown>(rt: TurnRuntime, label: string): Promise<T | undefined> {
  checkSignalName(label, 'a breakpoint label')
  if (!rt.live) return rt.never()
  const seq = rt.takeSeq()
  const record = rt.recorded(seq, label, 'breakpoint')
  if (record === null) return rt.never()
  const outcome = rt.awaitOutcome<T | undefined>(seq)
  if (record?.status === 'completed' || record?.status === 'failed') return outcome
  const startedAt = record?.startedAt ?? rt.clock.now()
  const message = rt.takeMessage(continueSignalName(seq))
  if (message !== null) {
    const step = { seq, name: label, kind: 'breakpoint' as const, attempts: 1, startedAt }
    rt.complete(step, { ok: true, output: message.payload }, message.seq)
  } else {
    // Recorded as waiting when the run suspends: that is what engine.continue looks for.
    const pending =
      record === undefined
        ? waitingRecord({
            runId: rt.runId,
            seq,
            name: label,
            kind: 'breakpoint',
            wakeAt: null,
            startedAt,
          })
        : null
    rt.waitDurably(seq, null, `breakpoint "${label}"`, pending, continueSignalName(seq))
  }
  return outcome
}
