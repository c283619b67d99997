/**
 * `engine.signal`: accept a signal into a run's inbox, where a `ctx.waitForSignal(name)` of
 * that run receives it — now if the run waits, later if it has not reached the wait yet.
 * Idempotent by `signalId`. A signal to an unknown or finished run is refused with a clear
 * error; a store outage fails fast with E_STORE_FAILURE (safe to retry with a signalId). A
 * run that continued as new passes the signal on to the latest run of its chain (the receipt
 * names the run that accepted it), after that run has adopted the older unreceived signals.
 */
import type { OpResult } from '../contracts/state_store.ts'
import { InvalidArgumentError, RunNotFoundError, RunTerminalError } from '../errors/index.ts'
import { checkSignalName } from '../execution/wait_names.ts'
import { assertIdentifier } from '../util/validate.ts'
import type { Committer } from './committer.ts'
import type { Driver } from './driver.ts'
import { adoptInbox, successorOf } from './inbox_adoption.ts'
import type { ResolvedEngineOptions } from './options.ts'

/** Where a signal goes: a run, and the name its workflow waits on. */
export interface SignalToken {
  runId: string
  name: string
}

export interface SignalOptions {
  /**
   * Deduplication id: a signal resent with an id this run already accepted is accepted once
   * (the resend reports `duplicate: true`). Give one whenever a send may be retried.
   */
  signalId?: string
}

export interface SignalReceipt {
  runId: string
  /** Acceptance order within the run (1, 2, …): waits receive signals in this order. */
  seq: number
  /** True when `signalId` had already been accepted: nothing new was stored. */
  duplicate: boolean
}

export interface SignalSenderDeps {
  options: ResolvedEngineOptions
  committer: Committer
  driver: Driver
}

export async function sendSignal(
  deps: SignalSenderDeps,
  token: SignalToken,
  payload: unknown,
  options: SignalOptions = {},
): Promise<SignalReceipt> {
  const { runId, name } = checkToken(token)
  const dedupeId = options.signalId ?? null
  if (dedupeId !== null) assertIdentifier(dedupeId, 'signalId')
  for (let target = runId; ;) {
    try {
      return await deliverSignal(deps, { runId: target, name }, payload, dedupeId)
    } catch (error) {
      const next = await forwardedTo(deps, target, error)
      if (next === null) throw error
      target = next
    }
  }
}

/** Where a signal refused by a `continued` run goes instead (null: nowhere, rethrow). */
async function forwardedTo(
  deps: SignalSenderDeps,
  runId: string,
  error: unknown,
): Promise<string | null> {
  if (!RunTerminalError.is(error)) return null
  if ((error.details as { status?: string }).status !== 'continued') return null
  const next = await successorOf(deps.options.store, runId)
  // The older, unreceived signals go first: the chain keeps acceptance order.
  if (next !== null) await adoptInbox(deps, runId, next)
  return next
}

/** Deliver a signal whose token is already checked (Cairn's own names included). */
export async function deliverSignal(
  deps: SignalSenderDeps,
  { runId, name }: SignalToken,
  payload: unknown,
  dedupeId: string | null,
): Promise<SignalReceipt> {
  const encoded = deps.options.codec.encode(payload, `payload of signal "${name}"`)
  const message = { runId, kind: 'signal' as const, name, dedupeId, payload: encoded }
  const result = await deps.committer.enqueue({ type: 'deliverMessage', message }, true)
  const receipt = toReceipt(runId, name, result)
  // The store made a waiting run claimable now; if this engine drives runs, take it at once.
  // If it is executing here, busy, its turn reads the message now.
  if (!receipt.duplicate) {
    deps.driver.wake(deps.options.clock.now())
    deps.driver.turnOf(runId)?.inboxChanged(name)
  }
  return receipt
}

function checkToken(token: SignalToken): SignalToken {
  if (typeof token !== 'object' || token === null) {
    throw new InvalidArgumentError('a signal token is { runId, name }')
  }
  assertIdentifier(token.runId, 'runId')
  checkSignalName(token.name)
  return { runId: token.runId, name: token.name }
}

function toReceipt(runId: string, name: string, result: OpResult): SignalReceipt {
  if (result.status === 'delivered') return { runId, seq: result.seq, duplicate: result.duplicate }
  if (result.status === 'not_found') {
    throw new RunNotFoundError(`no run with id "${runId}" to signal "${name}"`, {
      details: { runId, signal: name },
    })
  }
  if (result.status === 'terminal') {
    throw new RunTerminalError(
      `run "${runId}" already finished (${result.current.status}); it accepts no signal "${name}"`,
      { details: { runId, signal: name, status: result.current.status } },
    )
  }
  throw new Error(`unexpected store result for deliverMessage: ${result.status}`)
}
