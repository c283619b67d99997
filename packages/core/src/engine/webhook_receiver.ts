/**
 * The framework-agnostic webhook receiver: token + body → outcome. The AdonisJS binding mounts
 * it on a route (`webhookUrl` in config/durable.ts); any other server calls
 * `engine.receiveWebhook`. A token is accepted only if the run and position it names recorded it
 * (one single-row read, then a constant-time comparison), so a guessed or stale token stores
 * nothing and costs little. The first callback per token is kept; later ones are duplicates.
 */
import { timingSafeEqual } from 'node:crypto'
import { WebhookNotFoundError } from '../errors/index.ts'
import { parseWebhookToken, webhookSignalName } from '../execution/webhook.ts'
import { deliverSignal, type SignalReceipt, type SignalSenderDeps } from './signal_sender.ts'

export interface WebhookReceipt {
  runId: string
  /** `accepted`: kept for the run's wait; `duplicate`: this token already delivered a callback. */
  status: 'accepted' | 'duplicate'
}

export async function receiveWebhook(
  deps: SignalSenderDeps,
  token: string,
  body: unknown,
): Promise<WebhookReceipt> {
  const parsed = parseWebhookToken(token)
  if (parsed === null || !(await recorded(deps, parsed.runId, parsed.seq, token)))
    throw new WebhookNotFoundError('no run is waiting for a callback with this token')
  const name = webhookSignalName(parsed.secret)
  const receipt: SignalReceipt = await deliverSignal(
    deps,
    { runId: parsed.runId, name },
    body,
    name,
  )
  return { runId: parsed.runId, status: receipt.duplicate ? 'duplicate' : 'accepted' }
}

/**
 * Whether the position the token names recorded this very token (compared in constant time):
 * one single-row read, whatever the run's history holds.
 */
async function recorded(
  deps: SignalSenderDeps,
  runId: string,
  seq: number,
  token: string,
): Promise<boolean> {
  const [record] = await deps.options.store.loadCheckpointPage(runId, { fromSeq: seq, limit: 1 })
  if (record?.seq !== seq || record.kind !== 'webhook' || record.output === null) return false
  const { token: stored } = deps.options.codec.decode(record.output) as { token: string }
  const candidate = Buffer.from(stored)
  const wanted = Buffer.from(token)
  return candidate.length === wanted.length && timingSafeEqual(candidate, wanted)
}

/** HTTP status and body for a receiver route: what each outcome means to the caller. */
export function webhookHttpResponse(result: WebhookReceipt | unknown): {
  status: number
  body: Record<string, unknown>
} {
  if (isReceipt(result))
    return { status: result.status === 'accepted' ? 202 : 200, body: { status: result.status } }
  const code = (result as { code?: unknown } | null)?.code
  if (code === 'E_WEBHOOK_NOT_FOUND' || code === 'E_RUN_NOT_FOUND')
    return { status: 404, body: { error: 'unknown webhook' } }
  if (code === 'E_RUN_TERMINAL') return { status: 410, body: { error: 'the run has finished' } }
  if (code === 'E_NOT_SERIALIZABLE' || code === 'E_PAYLOAD_TOO_LARGE')
    return { status: 400, body: { error: String(code) } }
  if (code === 'E_STORE_FAILURE') return { status: 503, body: { error: 'try again later' } }
  return { status: 500, body: { error: 'internal error' } }
}

function isReceipt(value: unknown): value is WebhookReceipt {
  const status = (value as { status?: unknown } | null)?.status
  return status === 'accepted' || status === 'duplicate'
}
