/**
 * The webhook route the provider mounts when config/durable.ts has a `webhookUrl`: a real
 * AdonisJS server, a run waiting on `ctx.webhook()`, and callbacks over HTTP. Third parties
 * hold nothing but the token, so the route answers the same 404 for every token that opens
 * nothing, refuses oversized bodies while reading them, and reads no history before the
 * token's single-row check.
 */
import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { describe, test, type TestContext } from 'node:test'
import { defineConfig } from '@cairn/adonis'
import { SqliteStore } from '@cairn/sql/sqlite'
import type { Engine, StateStore } from '@cairn/core'
import type { ApplicationService } from '@adonisjs/core/types'
import { startApp, tempDir } from './helpers.ts'

const PUBLIC_URL = 'https://shop.example.com/hooks'

type Body = string | Uint8Array | ReadableStream<Uint8Array> | null

async function listen(t: TestContext, app: ApplicationService): Promise<string> {
  const server = await app.container.make('server')
  await server.boot()
  const http = createServer((req, res) => void server.handle(req, res))
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => http.close(() => resolve())))
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}`
}

/** The store's history reads, counted: the route must not make any before the token check. */
function countingReads(store: StateStore) {
  const reads: string[] = []
  const proxy = new Proxy(store, {
    get(target, name, receiver) {
      const value: unknown = Reflect.get(target, name, receiver)
      if (typeof value !== 'function') return value
      return (...args: unknown[]) => {
        if (name === 'loadCheckpoints' || name === 'loadCheckpointPage' || name === 'getRun')
          reads.push(`${String(name)} ${JSON.stringify(args[1] ?? null)}`)
        return (value as (...a: unknown[]) => unknown).apply(target, args)
      }
    },
  })
  return { proxy, reads }
}

async function bootWith(t: TestContext, extra: Record<string, unknown> = {}) {
  const path = join(await tempDir(t), 'durable.sqlite')
  const counted = countingReads(new SqliteStore({ path }))
  const app = await startApp(
    t,
    defineConfig({
      store: 'counted',
      stores: { counted: { type: 'provider', resolver: () => Promise.resolve(counted.proxy) } },
      drive: true,
      webhookUrl: PUBLIC_URL,
      webhooks: { maxBodyBytes: 1024 },
      ...extra,
    }),
  )
  const engine = await app.container.make('durable.engine')
  engine.register('callback', 1, async (ctx) => {
    const hook = await ctx.webhook()
    await ctx.setEvent('url', hook.url)
    return { received: await hook.wait() }
  })
  return { app, engine, url: await listen(t, app), reads: counted.reads }
}

/** Starts a run that waits for its webhook; its token and the URL it was handed. */
async function waitingRun(engine: Engine) {
  const { runId } = await engine.start('callback', null)
  const hookUrl = await engine.getEvent<string>(runId, 'url', { timeoutMs: 10_000 })
  assert.ok(hookUrl !== undefined && hookUrl.startsWith(`${PUBLIC_URL}/`), String(hookUrl))
  return { runId, token: decodeURIComponent(hookUrl.slice(PUBLIC_URL.length + 1)) }
}

async function post(url: string, body: Body | null, contentType = 'application/json') {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': contentType },
    body,
    ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
  })
  return { status: response.status, body: (await response.json()) as unknown }
}

const UNKNOWN = {
  error: {
    code: 'E_WEBHOOK_NOT_FOUND',
    message: 'no run is waiting for a callback with this token',
  },
}

void describe('the webhook route mounted from webhookUrl', () => {
  void test('a callback is accepted (202) and the waiting run receives its body', async (t) => {
    const { engine, url } = await bootWith(t)
    const { runId, token } = await waitingRun(engine)
    const answer = await post(`${url}/hooks/${token}`, JSON.stringify({ paid: true, cents: 4200 }))
    assert.deepEqual(answer, { status: 202, body: { status: 'accepted' } })
    const outcome = await engine.waitForRun(runId, { timeoutMs: 10_000 })
    assert.deepEqual(outcome, {
      runId,
      status: 'completed',
      output: { received: { paid: true, cents: 4200 } },
    })
  })

  void test('unknown, forged, used and finished tokens get one and the same 404', async (t) => {
    const { engine, url } = await bootWith(t)
    const { runId, token } = await waitingRun(engine)
    const forged = token.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'))
    assert.deepEqual(await post(`${url}/hooks/${forged}`, '{}'), { status: 404, body: UNKNOWN })
    assert.deepEqual(await post(`${url}/hooks/not-a-token`, '{}'), { status: 404, body: UNKNOWN })
    assert.deepEqual(await post(`${url}/hooks/a%2Fb`, '{}'), { status: 404, body: UNKNOWN })
    const long = `${url}/hooks/${'a'.repeat(1001)}`
    assert.deepEqual(await post(long, '{}'), { status: 404, body: UNKNOWN })

    assert.equal((await post(`${url}/hooks/${token}`, '{"n":1}')).status, 202)
    // Used while the run still exists, and again once it has finished: the same answer.
    assert.deepEqual(await post(`${url}/hooks/${token}`, '{"n":2}'), { status: 404, body: UNKNOWN })
    await engine.waitForRun(runId, { timeoutMs: 10_000 })
    assert.deepEqual(await post(`${url}/hooks/${token}`, '{"n":3}'), { status: 404, body: UNKNOWN })
    assert.deepEqual((await engine.getRun(runId))?.output, { received: { n: 1 } })
  })

  void test('no history is read before the token check, and the check reads one row', async (t) => {
    const { engine, url, reads } = await bootWith(t)
    const { token } = await waitingRun(engine)
    reads.length = 0
    await post(`${url}/hooks/not-a-token`, '{}')
    await post(`${url}/hooks/${token}`, 'x'.repeat(2048))
    assert.deepEqual(reads, [], 'a malformed token and an oversized body read nothing')

    const forged = token.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'))
    await post(`${url}/hooks/${forged}`, '{}')
    const position = Number(token.split('.')[1])
    assert.deepEqual(reads, [
      `loadCheckpointPage ${JSON.stringify({ fromSeq: position, limit: 1 })}`,
    ])
  })

  void test('a body past maxBodyBytes is 413, declared or streamed, and the run still waits', async (t) => {
    const { engine, url } = await bootWith(t)
    const { runId, token } = await waitingRun(engine)
    const tooLarge = {
      status: 413,
      body: {
        error: { code: 'E_PAYLOAD_TOO_LARGE', message: 'the body is larger than 1024 bytes' },
      },
    }
    const big = JSON.stringify({ pad: 'x'.repeat(2000) })
    assert.deepEqual(await post(`${url}/hooks/${token}`, big), tooLarge)
    // No content-length: the limit holds while the chunks arrive.
    const chunks = [
      Buffer.from('{"pad":"'),
      Buffer.alloc(600, 'y'),
      Buffer.alloc(600, 'y'),
      Buffer.from('"}'),
    ]
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = chunks.shift()
        if (next === undefined) controller.close()
        else controller.enqueue(next)
      },
    })
    assert.deepEqual(await post(`${url}/hooks/${token}`, stream), tooLarge)

    assert.equal((await engine.getRun(runId))?.status, 'waiting')
    assert.equal((await post(`${url}/hooks/${token}`, JSON.stringify({ pad: 'z' }))).status, 202)
    const outcome = await engine.waitForRun(runId, { timeoutMs: 10_000 })
    assert.deepEqual(outcome.status === 'completed' && outcome.output, { received: { pad: 'z' } })
  })

  void test('the body reaches the run as its content type says', async (t) => {
    const { engine, url } = await bootWith(t)
    const cases: Array<[Body | null, string, unknown]> = [
      ['a=1&b=2&b=3&__proto__=x', 'application/x-www-form-urlencoded', { a: '1', b: ['2', '3'] }],
      ['delivered', 'text/plain; charset=utf-8', 'delivered'],
      ['<ok/>', 'application/xml', '<ok/>'],
      ['{"v":1}', 'application/vnd.carrier+json', { v: 1 }],
      [new Uint8Array([0, 1, 255]), 'application/octet-stream', new Uint8Array([0, 1, 255])],
      [null, 'application/json', null],
    ]
    for (const [body, contentType, expected] of cases) {
      const { runId, token } = await waitingRun(engine)
      assert.equal(
        (await post(`${url}/hooks/${token}`, body, contentType)).status,
        202,
        contentType,
      )
      const outcome = await engine.waitForRun(runId, { timeoutMs: 10_000 })
      const received =
        outcome.status === 'completed' && (outcome.output as { received: unknown }).received
      if (contentType.startsWith('application/x-www')) {
        // A field named __proto__ is data, not the object's prototype.
        assert.equal(Object.getPrototypeOf(received), Object.prototype)
        assert.deepEqual(
          { ...(received as object) },
          { ...(expected as object), ['__proto__']: 'x' },
        )
      } else assert.deepEqual(received, expected, contentType)
    }
  })

  void test('a body its type cannot carry is refused and stores nothing', async (t) => {
    const { engine, url } = await bootWith(t)
    const { runId, token } = await waitingRun(engine)
    const invalidJson = await post(`${url}/hooks/${token}`, '{"v":', 'application/json')
    assert.equal(invalidJson.status, 400)
    const badUtf8 = await post(`${url}/hooks/${token}`, new Uint8Array([0xff, 0xfe]), 'text/plain')
    assert.equal(badUtf8.status, 400)
    const charset = await post(`${url}/hooks/${token}`, 'x', 'text/plain; charset=klingon')
    assert.equal(charset.status, 415)
    assert.equal((await engine.getRun(runId))?.status, 'waiting')
  })

  void test('outside the dashboard: its tokens are not asked for, its other routes are untouched', async (t) => {
    const { engine, url } = await bootWith(t, {
      webhookUrl: 'https://shop.example.com/durable/webhooks',
      webhooks: undefined,
      dashboard: { enabled: true, path: '/durable', tokens: ['dashboard-token-0123456789'] },
    })
    const { runId } = await engine.start('callback', null)
    const hookUrl = await engine.getEvent<string>(runId, 'url', { timeoutMs: 10_000 })
    const token = decodeURIComponent(hookUrl!.split('/').pop()!)
    assert.equal((await post(`${url}/durable/webhooks/${token}`, '{}')).status, 202)
    // GET is not the route's: the dashboard answers it, behind its auth.
    assert.equal((await fetch(`${url}/durable/webhooks/${token}`)).status, 401)
    assert.equal((await fetch(`${url}/durable/api/runs`)).status, 401)
  })

  void test('without webhookUrl nothing is mounted and hook.url is null', async (t) => {
    const { engine, url } = await bootWith(t, { webhookUrl: undefined, webhooks: undefined })
    const { runId } = await engine.start('callback', null)
    assert.equal(await engine.getEvent(runId, 'url', { timeoutMs: 10_000 }), null)
    assert.equal((await fetch(`${url}/hooks/x.1.y`, { method: 'POST' })).status, 404)
  })
})
