/**
 * Which positions `engine.requeue` runs again. The rule, and why:
 *
 * A run fails when its body throws. When what it threw is a local step's failure — the step's
 * error itself (an `await` or `Promise.all` passes it on unchanged) or an error carrying it as
 * a `cause` (the code wrapped it) — that failure escaped the workflow: it is why the run
 * failed. Requeue removes that step's failed checkpoint, so the replay runs the step again
 * with a fresh retry budget, and every completed checkpoint stays (those steps are replayed,
 * never re-run).
 *
 * - Only the latest escaped failure (highest delivery order) counts: an identical failure
 *   recorded earlier was caught (the body went on past it), and a caught failure is history
 *   the workflow acted on. Replaying it differently could change which positions the code
 *   asks for next, and the replay would no longer match the recorded steps.
 * - Failed local steps recorded after it are reset with it: the body had already thrown when
 *   they were delivered (a `Promise.all` sibling failing a moment later), or saw them on its
 *   way out. Keeping them would fail the requeued run again with the sibling's error.
 * - A failure the workflow code threw itself, a wait that timed out, a child that failed:
 *   nothing is reset. The replay runs the (possibly fixed) workflow code again on the same
 *   history.
 * - A run that ran compensations (a saga) undid its completed steps: it is refused, as
 *   resuming it would build on work that was undone.
 *
 * Errors are compared by name, message, code and stack, each as the body would have re-thrown
 * it (so a missing stack compares the way the run recorded it): two records equal in all four
 * are the same failure for every purpose a requeue has.
 */
import { isDeepStrictEqual } from 'node:util'
import type { Codec, SerializedError } from '../contracts/codec.ts'
import type { CheckpointRecord } from '../contracts/records.ts'
import { MAX_CAUSE_DEPTH } from '../codec/error_serialization.ts'
import { isCompensationStep } from '../execution/compensation_name.ts'
import { decodeError, encodeError } from '../execution/outcome.ts'

export type RequeuePlan = { resetSeqs: number[] } | { refused: 'compensated' }

export function planRequeue(
  runError: string | null,
  checkpoints: readonly CheckpointRecord[],
  codec: Codec,
): RequeuePlan {
  if (checkpoints.some(isCompensationStep)) return { refused: 'compensated' }
  const failedSteps = checkpoints.filter(
    (c) => c.kind === 'local' && c.status === 'failed' && c.order !== null,
  )
  const escaped = errorChain(runError, codec)
  let fatal: CheckpointRecord | undefined
  for (const step of failedSteps) {
    const thrown = fingerprint(asRethrown(step.error, codec))
    if (!escaped.some((e) => isDeepStrictEqual(fingerprint(e), thrown))) continue
    if (fatal === undefined || (step.order as number) > (fatal.order as number)) fatal = step
  }
  if (fatal === undefined) return { resetSeqs: [] }
  const from = fatal.order as number
  return { resetSeqs: failedSteps.filter((c) => (c.order as number) >= from).map((c) => c.seq) }
}

/** The run's error and its causes, outermost first ([] when there is none or it is unreadable). */
function errorChain(runError: string | null, codec: Codec): SerializedError[] {
  if (runError === null) return []
  const chain: SerializedError[] = []
  let current: unknown = decodeSafely(runError, codec)
  while (isSerializedError(current) && chain.length <= MAX_CAUSE_DEPTH) {
    chain.push(current)
    current = current.cause
  }
  return chain
}

/** What the run would have recorded had its body thrown this step's error as delivered. */
function asRethrown(stepError: string | null, codec: Codec): unknown {
  try {
    return codec.decode(encodeError(decodeError(stepError, codec), codec))
  } catch {
    return null // an unreadable record matches nothing: nothing is reset for it
  }
}

function fingerprint(error: unknown): unknown {
  if (!isSerializedError(error)) return null
  const { name, message, code, stack } = error
  return { name, message, code, stack }
}

function decodeSafely(text: string, codec: Codec): unknown {
  try {
    return codec.decode(text)
  } catch {
    return null // an unreadable record matches nothing: nothing is reset for it
  }
}

function isSerializedError(value: unknown): value is SerializedError {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as SerializedError).name === 'string' &&
    typeof (value as SerializedError).message === 'string'
  )
}
