/**
 * The webhook route, `POST <path>/:token`, where third parties deliver `ctx.webhook()`
 * callbacks. It is a server middleware, ahead of the app's router, on purpose: the router's
 * middleware (the bodyparser, sessions, shield's CSRF check, auth) is for the app's own users,
 * and none of it applies to a caller whose only credential is the token in the path — a CSRF
 * check would refuse every callback, and the bodyparser would read the body under its own
 * limit before this route could apply its own. The dashboard's auth does not apply either.
 *
 * In order, each step refusing before the next costs anything: a token that cannot be one →
 * 404; a declared length over the limit → 413, nothing read; a body growing past the limit →
 * 413, reading stops; a body its content type cannot carry → 400/415; then one single-row
 * read of the run's history (the token check in `engine.receiveWebhook`) before anything is
 * stored.
 */
import type { HttpContext } from '@adonisjs/core/http'
import type { ApplicationService } from '@adonisjs/core/types'
import type { Engine } from '@cairn/core'
import {
  answerFor,
  answerForError,
  INTERNAL_ERROR,
  refusal,
  UNKNOWN_WEBHOOK,
  type WebhookAnswer,
} from './webhook_answer.ts'
import { bodyValue, readBodyBytes } from './webhook_body.ts'
import type { ResolvedWebhooksConfig } from './webhook_config.ts'

/** Core's tokens are at most 1 000 characters of base64url, digits and dots. */
const TOKEN_SHAPE = /^[A-Za-z0-9._~-]{1,1000}$/

export async function mountWebhooks(
  app: ApplicationService,
  engine: Engine,
  config: ResolvedWebhooksConfig,
): Promise<void> {
  const receive = webhookReceiver(engine, config)
  class WebhookRouteMiddleware {
    handle(ctx: HttpContext, next: () => Promise<void>): Promise<void> {
      return receive(ctx, next)
    }
  }
  const server = await app.container.make('server')
  server.use([async () => ({ default: WebhookRouteMiddleware })])
}

/** The middleware's work: answers `POST <path>/<token>`, passes every other request on. */
export function webhookReceiver(engine: Engine, config: ResolvedWebhooksConfig) {
  const prefix = `${config.path}/`
  return async (ctx: HttpContext, next: () => Promise<void>): Promise<void> => {
    const path = ctx.request.url()
    if (ctx.request.method() !== 'POST' || !path.startsWith(prefix)) return next()
    send(ctx, await answer(ctx, engine, tokenIn(path.slice(prefix.length)), config.maxBodyBytes))
  }
}

async function answer(
  ctx: HttpContext,
  engine: Engine,
  token: string | null,
  maxBodyBytes: number,
): Promise<WebhookAnswer> {
  if (token === null) return UNKNOWN_WEBHOOK
  const bytes = await readBodyBytes(ctx.request.request, maxBodyBytes)
  if (!Buffer.isBuffer(bytes)) return closing(ctx, refusal(bytes.status, bytes.code, bytes.message))
  const body = bodyValue(bytes, ctx.request.header('content-type'))
  if (!body.ok) return refusal(body.refusal.status, body.refusal.code, body.refusal.message)
  try {
    return answerFor(await engine.receiveWebhook(token, body.value))
  } catch (error) {
    const known = answerForError(error)
    if (known === null) ctx.logger.error({ err: error }, 'webhook callback failed')
    return known ?? INTERNAL_ERROR
  }
}

/** The token a path segment holds, or null when it cannot be one (no store read for it). */
function tokenIn(segment: string): string | null {
  let token: string
  try {
    token = decodeURIComponent(segment)
  } catch {
    return null
  }
  return TOKEN_SHAPE.test(token) ? token : null
}

/** A body left unread: the connection closes after the answer, so the rest is not awaited. */
function closing(ctx: HttpContext, answer: WebhookAnswer): WebhookAnswer {
  ctx.response.header('connection', 'close')
  return answer
}

function send(ctx: HttpContext, answer: WebhookAnswer): void {
  ctx.response.header('cache-control', 'no-store')
  ctx.response.status(answer.status).json(answer.body)
}
