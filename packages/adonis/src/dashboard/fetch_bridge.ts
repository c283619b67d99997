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
  const body = BODYLESS.has(method) ? null : (request.raw() ?? null)
  // The raw body is a decoded string; its length is no longer the wire length.
  headers.delete('content-length')
  headers.delete('transfer-encoding')
  return new Request(url, { method, headers, body, signal: abortSignal(ctx) })
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
