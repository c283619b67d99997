/**
 * `ctx.onUpdate(name, { validate, timeoutMs })`: receive the next update a caller sent with
 * `engine.update(runId, name, arg)`. Each update is validated here, in the run, by a pure
 * function; the decision (accepted, or rejected with a reason) is recorded at a position of
 * its own, so the caller learns it and a replay makes the same one. A rejected update changes
 * nothing and the wait goes on; an accepted one is returned to the workflow, once.
 */
import { SignalTimeoutError } from '../errors/index.ts'
import { encodeError } from './outcome.ts'
import { UPDATE_WAIT_OPTIONS } from './option_specs.ts'
import { checkOptionKeys } from '../util/known_keys.ts'
import type { TurnRuntime } from './runtime.ts'
import type { UpdateOptions } from './types.ts'
import { checkSignalName, RESERVED_PREFIX } from './wait_names.ts'
import { waitingRecord } from './waiting_record.ts'
import { checkWaitTimeout } from './wait_timeout.ts'

/** What the run recorded about one update: the caller polls for it by `updateId`. */
export interface UpdateDecision {
  updateId: string
  accepted: boolean
  reason: string | null
}

export function updateSignalName(name: string): string {
  return `${RESERVED_PREFIX}update:${name}`
}

export async function onUpdate<A>(
  rt: TurnRuntime,
  name: string,
  options: UpdateOptions<A> = {},
): Promise<A> {
  checkSignalName(name, 'an update name')
  checkOptionKeys(options, UPDATE_WAIT_OPTIONS, `ctx.onUpdate("${name}")`)
  checkWaitTimeout(options.timeoutMs, 'onUpdate', rt.clock.now())
  for (;;) {
    const decision = await nextDecision<A>(rt, name, options)
    if (decision.accepted) return decision.arg as A
  }
}

/** One position: the next update's decision (recorded), or a timeout. */
function nextDecision<A>(
  rt: TurnRuntime,
  name: string,
  options: UpdateOptions<A>,
): Promise<UpdateDecision & { arg?: unknown }> {
  if (!rt.live) return rt.never()
  const seq = rt.takeSeq()
  const record = rt.recorded(seq, name, 'update')
  if (record === null) return rt.never()
  const outcome = rt.awaitOutcome<UpdateDecision & { arg?: unknown }>(seq)
  if (record?.status === 'completed' || record?.status === 'failed') return outcome
  const startedAt = record?.startedAt ?? rt.clock.now()
  const timeoutMs = options.timeoutMs
  const deadline = record?.wakeAt ?? (timeoutMs === undefined ? null : startedAt + timeoutMs)
  const step = { seq, name, kind: 'update' as const, attempts: 1, startedAt, wakeAt: deadline }
  const pending =
    record === undefined
      ? waitingRecord({ runId: rt.runId, seq, name, kind: 'update', wakeAt: deadline, startedAt })
      : null
  // Now, and again whenever a busy turn reads a new message or the deadline comes.
  const evaluate = (): void => {
    const message = rt.takeMessage(updateSignalName(name))
    if (message !== null) {
      let decoded: { updateId: string; arg: A }
      try {
        decoded = rt.codec.decode(message.payload) as { updateId: string; arg: A }
      } catch (error) {
        return rt.unreadable(`update "${name}" at position ${seq}`, error)
      }
      const { updateId, arg } = decoded
      const reason = validate(options.validate, arg)
      const decision = {
        updateId,
        accepted: reason === null,
        reason,
        ...(reason === null ? { arg } : {}),
      }
      rt.complete(step, { ok: true, output: rt.codec.encode(decision) }, message.seq)
    } else if (deadline !== null && deadline <= rt.clock.now()) {
      const error = new SignalTimeoutError(`update:${name}`, timeoutMs ?? deadline - startedAt)
      rt.complete(step, { ok: false, error: encodeError(error, rt.codec) })
    } else {
      rt.waitDurably(seq, deadline, `update "${name}"`, pending, updateSignalName(name), evaluate)
    }
  }
  evaluate()
  return outcome
}

/** null when accepted, else the reason. A validator that throws rejects with its message. */
function validate<A>(validator: UpdateOptions<A>['validate'], arg: A): string | null {
  if (validator === undefined) return null
  try {
    const verdict = validator(arg)
    if (verdict === true || verdict === undefined) return null
    return verdict === false ? 'rejected by the validator' : String(verdict)
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  }
}
