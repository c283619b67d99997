/**
 * What the webhook route answers for each outcome of `engine.receiveWebhook`. Third parties
 * call it with nothing but the token, so an answer must not tell a prober more than "accepted"
 * or "no": a token nobody recorded, one already used (a duplicate), and one of a run that has
 * finished all get the very same 404. (Core's `webhookHttpResponse` tells them apart — 200,
 * 410 — for routes whose callers are trusted; this route's are not.)
 */
import { CairnError, type WebhookReceipt } from '@cairn/core'

export interface WebhookAnswer {
  status: number
  body: { status: 'accepted' } | { error: { code: string; message: string } }
}

export const ACCEPTED: WebhookAnswer = { status: 202, body: { status: 'accepted' } }

export const UNKNOWN_WEBHOOK: WebhookAnswer = {
  status: 404,
  body: {
    error: {
      code: 'E_WEBHOOK_NOT_FOUND',
      message: 'no run is waiting for a callback with this token',
    },
  },
}

/** Outcomes that all mean "this token opens nothing (any more)". */
const NOT_FOUND_CODES = new Set(['E_WEBHOOK_NOT_FOUND', 'E_RUN_NOT_FOUND', 'E_RUN_TERMINAL'])

export function answerFor(receipt: WebhookReceipt): WebhookAnswer {
  return receipt.status === 'accepted' ? ACCEPTED : UNKNOWN_WEBHOOK
}

/** The answer for a refusal, or null for an unexpected error (a 500 the caller logs). */
export function answerForError(error: unknown): WebhookAnswer | null {
  const code = CairnError.isCairnError(error) ? error.code : undefined
  if (code === undefined) return null
  if (NOT_FOUND_CODES.has(code)) return UNKNOWN_WEBHOOK
  // The codec's own limits: the body fit the route's limit but not what the store may keep.
  if (code === 'E_PAYLOAD_TOO_LARGE') return refusal(413, code, 'the body is too large to store')
  if (code === 'E_NOT_SERIALIZABLE') return refusal(400, code, 'the body cannot be stored')
  if (code === 'E_STORE_FAILURE') return refusal(503, code, 'try again later')
  return null
}

export function refusal(status: number, code: string, message: string): WebhookAnswer {
  return { status, body: { error: { code, message } } }
}

export const INTERNAL_ERROR: WebhookAnswer = refusal(500, 'E_INTERNAL', 'internal error')
