/**
 * `engine.update(runId, name, arg)`: send an update to a run and wait for the run's decision —
 * accepted, or rejected with the validator's reason. The update travels as a message
 * (deduplicated by `updateId`, so a retried call is the same update) and the decision is read
 * from the run's history, where the run recorded it.
 */
import { randomUUID } from 'node:crypto'
import { WaitTimeoutError } from '../errors/index.ts'
import { updateSignalName, type UpdateDecision } from '../execution/update.ts'
import { checkSignalName } from '../execution/wait_names.ts'
import { checkInteger, MAX_TIME_MS } from '../util/numbers.ts'
import { assertIdentifier } from '../util/validate.ts'
import { pollUntil } from './poll_until.ts'
import { deliverSignal, type SignalSenderDeps } from './signal_sender.ts'

export interface UpdateCallOptions {
  /** Idempotency key: resending the same id is the same update. Default: a new UUID. */
  updateId?: string
  /** How long to wait for the run's decision (wall clock). Default 30 s. */
  timeoutMs?: number
}

export interface UpdateResult {
  updateId: string
  accepted: boolean
  /** The validator's reason when rejected, else null. */
  reason: string | null
}

export async function sendUpdate(
  deps: SignalSenderDeps,
  runId: string,
  name: string,
  arg: unknown,
  options: UpdateCallOptions = {},
): Promise<UpdateResult> {
  assertIdentifier(runId, 'runId')
  checkSignalName(name, 'an update name')
  const timeoutMs = checkInteger(options.timeoutMs ?? 30_000, 'update timeoutMs', {
    min: 0,
    max: MAX_TIME_MS,
  })
  const updateId = options.updateId ?? randomUUID()
  assertIdentifier(updateId, 'updateId')
  const signal = updateSignalName(name)
  await deliverSignal(deps, { runId, name: signal }, { updateId, arg }, `${signal}:${updateId}`)
  const deadline = Date.now() + timeoutMs
  const decision = await pollUntil(() => findDecision(deps, runId, name, updateId), deadline)
  if (decision !== null) return decision
  throw new WaitTimeoutError(`run "${runId}" has not decided update "${name}" (${updateId}) yet`, {
    details: { runId, update: name, updateId },
  })
}

async function findDecision(
  deps: SignalSenderDeps,
  runId: string,
  name: string,
  updateId: string,
): Promise<UpdateResult | null> {
  for (const r of await deps.options.store.loadCheckpoints(runId)) {
    if (r.kind !== 'update' || r.name !== name || r.status !== 'completed' || r.output === null)
      continue
    const d = deps.options.codec.decode(r.output) as UpdateDecision
    if (d.updateId === updateId) return { updateId, accepted: d.accepted, reason: d.reason }
  }
  return null
}
