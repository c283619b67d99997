/**
 * One server-sent-events response: named events with JSON data, a `retry: 2000` hint, a
 * `: keep-alive` comment every `keepAliveMs` so proxies keep an idle stream open, and one
 * ending — client gone, `end()` from the producer, or the dashboard closing — after which
 * the producer's cleanup runs once.
 */
import type { Context } from 'hono'
import { streamSSE, type SSEStreamingApi } from 'hono/streaming'
import { safeJson } from '../http/responses.ts'
import type { StreamLease, StreamRegistry } from './stream_registry.ts'

const RECONNECT_MS = 2000

export interface SseChannel {
  send(event: string, data: unknown): Promise<void>
  /** End the stream (the producer is done). */
  end(): void
  readonly ended: boolean
}

/** 429 before anything is sent when the caller (`principal`) or the dashboard holds too many. */
export function openSseChannel(
  c: Context,
  registry: StreamRegistry,
  principal: string,
  keepAliveMs: number,
  produce: (channel: SseChannel) => Promise<() => void>,
): Response {
  const lease = registry.lease(principal)
  const response = streamSSE(c, async (stream) => {
    try {
      await stream.write(`retry: ${RECONNECT_MS}\n\n`)
      await runChannel(stream, lease, keepAliveMs, produce)
    } finally {
      lease.release()
    }
  })
  response.headers.set('cache-control', 'no-store')
  return response
}

async function runChannel(
  stream: SSEStreamingApi,
  lease: StreamLease,
  keepAliveMs: number,
  produce: (channel: SseChannel) => Promise<() => void>,
): Promise<void> {
  let finish: () => void = () => {}
  const finished = new Promise<void>((resolve) => (finish = resolve))
  const channel = {
    ended: false,
    send: async (event: string, data: unknown) => {
      if (!channel.ended) await stream.writeSSE({ event, data: safeJson(data) })
    },
    end: () => {
      channel.ended = true
      finish()
    },
  }
  stream.onAbort(channel.end)
  // A client gone before the listener was there (it aborted during the first write) is gone
  // all the same: without this check its stream would hold its place until the dashboard closed.
  if (stream.aborted) channel.end()
  lease.attach(channel.end)
  const keepAlive = setInterval(() => void stream.write(': keep-alive\n\n'), keepAliveMs)
  let cleanup: () => void = () => {}
  try {
    cleanup = await produce(channel)
    await finished
  } finally {
    channel.ended = true
    clearInterval(keepAlive)
    cleanup()
  }
}
