/**
 * Between AdonisJS's HttpContext and a fetch handler: the request as a WHATWG Request (the
 * body as the bodyparser read it, since it has consumed the stream), and a Response written
 * back through `ctx.response` — streamed, so server-sent events flow as they are produced.
 */
import { Readable } from 'node:stream'
import type { ReadableStream as NodeReadableStream } from 'node:stream/web'
import type { HttpContext } from '@adonisjs/core/http'

const BODYLESS = new Set(['GET', 'HEAD'])

export function toFetchRequest(ctx: HttpContext): Request {
  const { request } = ctx
  const method = request.method()
  const url = `${request.protocol()}://${request.host() ?? 'localhost'}${request.url(true)}`
  const headers = new Headers()
  for (const [name, value] of Object.entries(request.headers())) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v)
    else if (value !== undefined) headers.set(name, value)
  }
  const body = BODYLESS.has(method) ? null : bodyOf(ctx)
  // The body is re-sent as read (a decoded string, or the stream): the wire length no longer holds.
  headers.delete('content-length')
  headers.delete('transfer-encoding')
  const init: RequestInit & { duplex?: 'half' } = {
    method,
    headers,
    body,
    signal: abortSignal(ctx),
  }
  if (body instanceof ReadableStream) init.duplex = 'half'
  return new Request(url, init)
}

/**
 * The request body as the client sent it. The bodyparser keeps the raw text of what it parsed
 * as JSON (`request.raw()`); a body of a type it leaves alone is still unread on the socket and
 * is passed on as a stream. A body it parsed into fields (a form) has no raw text left: it goes
 * on as none, and the dashboard refuses the request by its content type (415) — a body is
 * never replaced by `{}`.
 */
function bodyOf(ctx: HttpContext): string | ReadableStream<Uint8Array> | null {
  const raw = ctx.request.raw()
  if (raw !== null) return raw
  const incoming = ctx.request.request
  if (incoming.readableEnded || incoming.readableDidRead) return null
  return Readable.toWeb(incoming) as ReadableStream<Uint8Array>
}

export function sendFetchResponse(ctx: HttpContext, response: Response): void {
  ctx.response.status(response.status)
  for (const [name, value] of response.headers) {
    if (name === 'set-cookie') continue
    ctx.response.header(name, value)
  }
  for (const cookie of response.headers.getSetCookie()) ctx.response.append('set-cookie', cookie)
  if (response.body === null) {
    ctx.response.send('')
    return
  }
  ctx.response.stream(Readable.fromWeb(response.body as NodeReadableStream<Uint8Array>))
}

/** Aborted when the client goes away, so a live stream stops producing. */
function abortSignal(ctx: HttpContext): AbortSignal {
  const controller = new AbortController()
  const res = ctx.response.response
  res.once('close', () => {
    if (!res.writableFinished) controller.abort()
  })
  return controller.signal
}
