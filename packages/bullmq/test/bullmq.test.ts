/** What the conformance suite does not cover: options, an unreachable Redis, tasks that stall often. */
import { firstAttemptTask } from '@cairn/core/testing'
import assert from 'node:assert/strict'
import { connect, createServer, type AddressInfo, type Socket } from 'node:net'
import { test } from 'node:test'
import type { TaskMessage } from '@cairn/core/wire'
import { Queue } from 'bullmq'
import { Redis } from 'ioredis'
import { bullmqTransport } from '../src/index.ts'
import { parseRedisUrl } from '../src/options.ts'
import { taskQueueName } from '../src/layout.ts'
import { createUnderTest, REDIS_URL, redisUp } from './redis_fixture.ts'

const invalid = { code: 'E_INVALID_ARGUMENT' }

void test('a malformed or foreign connection URL is refused at creation, never defaulted', () => {
  for (const url of [
    'not a url',
    'redis//127.0.0.1:6379',
    'http://127.0.0.1:6379',
    'redis://',
    'redis://127.0.0.1:notaport',
    'redis://127.0.0.1:6379/zero',
    'redis://127.0.0.1:6379/0?family=6',
    '',
  ])
    assert.throws(() => bullmqTransport({ connection: url }), invalid, url)
})

void test('a redis URL becomes ioredis options: credentials, database, TLS for rediss', () => {
  assert.deepEqual(parseRedisUrl('redis://127.0.0.1'), { host: '127.0.0.1', port: 6379 })
  assert.deepEqual(parseRedisUrl('rediss://us%40r:p%3Ass@cache.example:6380/3'), {
    host: 'cache.example',
    port: 6380,
    username: 'us@r',
    password: 'p:ss',
    db: 3,
    tls: {},
  })
  assert.deepEqual(parseRedisUrl('redis://[::1]:7000'), { host: '::1', port: 7000 })
})

void test('bad options are refused: unknown keys, numbers out of range, a keyPrefix, a bad prefix', () => {
  const connection = 'redis://127.0.0.1:6379'
  const cases: unknown[] = [
    undefined,
    {},
    { connection, stalledInterval: 1000 },
    { connection, stalledIntervalMs: 0 },
    { connection, pollIntervalMs: 1.5 },
    { connection, reportBatchSize: Number.NaN },
    { connection, redeliverAfterMs: '100' },
    { connection, reportHoldMs: 10 },
    { connection, prefix: '' },
    { connection, prefix: 'a:b' },
    { connection, prefix: 'has space' },
    { connection, onRefused: 'log' },
    { connection: { host: '127.0.0.1', keyPrefix: 'x:' } },
    { connection: 6379 },
  ]
  for (const options of cases)
    assert.throws(
      () => bullmqTransport(options as Parameters<typeof bullmqTransport>[0]),
      invalid,
      JSON.stringify(options),
    )
  // What it takes: a URL, options, an instance (its options are used; it is never connected).
  bullmqTransport({ connection, prefix: 'app-1', stalledIntervalMs: 1000 })
  bullmqTransport({ connection: { host: '127.0.0.1', port: 6379 } })
  const instance = new Redis({ lazyConnect: true })
  bullmqTransport({ connection: instance })
  instance.disconnect()
})

void test('open() rejects with a clear error when Redis cannot be reached, and leaves nothing running', async () => {
  // A loopback port that was just free: nothing listens there.
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  const transport = bullmqTransport({ connection: `redis://127.0.0.1:${port}` })
  for (const half of [transport.engine(), transport.worker()]) {
    await assert.rejects(
      () => half.open(),
      (error: Error) => {
        assert.match(error.message, new RegExp(`cannot reach Redis at 127\\.0\\.0\\.1:${port}`))
        assert.match(error.message, /ECONNREFUSED/)
        return true
      },
    )
    await half.close()
  }
})

void test(
  'a failed open() is forgotten: once Redis can be reached, the next open() connects (both halves)',
  { skip: !redisUp && 'Redis is down' },
  async (t) => {
    // A loopback port with nothing behind it, then a relay to the real Redis on that port.
    const probe = createServer()
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
    const { port } = probe.address() as AddressInfo
    await new Promise<void>((resolve) => probe.close(() => resolve()))
    const redis = new URL(REDIS_URL)
    const transport = bullmqTransport({
      connection: `redis://127.0.0.1:${port}`,
      prefix: `reopen${process.pid}`,
    })
    const halves = [transport.engine(), transport.worker()]
    for (const half of halves) await assert.rejects(() => half.open(), /cannot reach Redis/)
    const sockets = new Set<Socket>()
    const relay = createServer((client) => {
      const upstream = connect(Number(redis.port || 6379), redis.hostname)
      for (const socket of [client, upstream]) {
        sockets.add(socket)
        socket.on('error', () => {})
      }
      client.pipe(upstream).pipe(client)
    })
    await new Promise<void>((resolve) => relay.listen(port, '127.0.0.1', resolve))
    t.after(async () => {
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => relay.close(() => resolve()))
    })
    for (const half of halves) {
      await half.open() // a cached rejection would reject again here
      await half.close()
    }
  },
)

function task(step: string): TaskMessage {
  const runId = `stall-${process.pid}-${Date.now()}`
  return firstAttemptTask({ runId, step, input: '{}', heartbeatIntervalMs: 100 })
}

if (redisUp) {
  void test('a task whose holders go silent again and again is delivered every time, never failed', async () => {
    const t = createUnderTest({ stalledIntervalMs: 100 })
    const engine = t.engine()
    const workers = [t.worker(), t.worker()]
    const inspect = new Redis(REDIS_URL, { maxRetriesPerRequest: null })
    const queue = new Queue(taskQueueName('flaky', []), { connection: inspect, prefix: t.prefix })
    try {
      await engine.open()
      for (const worker of workers) await worker.open()
      const sent = task('flaky')
      await engine.publish([{ message: sent, delayMs: 0 }])
      // BullMQ's default maxStalledCount is 1: the second stall would move the job to failed.
      for (let delivery = 1; delivery <= 4; delivery++) {
        const worker = workers[delivery % 2]!
        const [got] = await worker.receive({
          steps: ['flaky'],
          capabilities: [],
          max: 1,
          holdMs: 200,
          signal: AbortSignal.timeout(10_000),
        })
        assert.equal(got?.message.taskId, sent.taskId, `delivery ${delivery}`)
        if (delivery < 4) continue // silent: the hold lapses, the stalled check puts it back
        await got.complete({
          v: 1,
          type: 'result',
          taskId: sent.taskId,
          runId: sent.runId,
          seq: 0,
          attempt: 1,
          workerId: 'w-1',
          startedAt: Date.now(),
          finishedAt: Date.now(),
          outcome: { status: 'completed', output: '1' },
        })
      }
      assert.equal(await queue.getFailedCount(), 0, 'a stalled task went to the failed set')
      assert.deepEqual(await queue.getJobCounts('wait', 'active', 'delayed', 'completed'), {
        wait: 0,
        active: 0,
        delayed: 0,
        completed: 0,
      })
    } finally {
      for (const worker of workers) await worker.close()
      await engine.close()
      await queue.close()
      await inspect.quit()
      await t.cleanup()
    }
  })
}
