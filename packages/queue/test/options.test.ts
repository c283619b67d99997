/**
 * queueTransport refuses bad options at creation with E_INVALID_ARGUMENT, and a half whose
 * adapter cannot reach its store fails open() clearly, leaving nothing open, and can open again.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { redis } from '@boringnode/queue/drivers/redis_adapter'
import type { QueueAdapter, QueueAdapterFactory } from '../src/adapter.ts'
import { queueTransport, type QueueTransportOptions } from '../src/index.ts'

const adapter: QueueAdapterFactory = () => {
  throw new Error('not made in these tests')
}

function refused(options: unknown, pattern: RegExp): void {
  assert.throws(
    () => queueTransport(options as QueueTransportOptions),
    (error: Error & { code?: string }) => {
      assert.equal(error.code, 'E_INVALID_ARGUMENT')
      assert.match(error.message, pattern)
      return true
    },
  )
}

void test('queueTransport refuses a missing adapter, unknown keys and bad values', () => {
  refused(undefined, /options are required/)
  refused([], /options must be a plain object/)
  refused({}, /adapter is required/)
  refused({ adapter: 'redis' }, /adapter is required/)
  refused({ adapter, pollInterval: 5 }, /unknown option "pollInterval"/)
  refused({ adapter, prefix: 'a:b' }, /prefix must be/)
  refused({ adapter, prefix: '' }, /prefix must be/)
  refused({ adapter, pollIntervalMs: Number.NaN }, /pollIntervalMs/)
  refused({ adapter, pollIntervalMs: 0 }, /pollIntervalMs/)
  refused({ adapter, reportBatchSize: 1e9 }, /reportBatchSize/)
  refused({ adapter, reportHoldMs: '30000' }, /reportHoldMs/)
  refused({ adapter, onError: 'log' }, /onError must be a function/)
  // @adonis-agora/durable's name: refused with what to write instead.
  refused(
    { adapter, connection: 'redis' },
    /unknown option "connection": the adapter says which connection/,
  )
  refused(JSON.parse('{"__proto__":{"x":1}}'), /adapter is required|unknown option/)
  assert.doesNotThrow(() => queueTransport({ adapter, prefix: 'shop_1-a' }))
})

void test('a factory that throws or makes no adapter fails open() with a clear error', async () => {
  const throwing = queueTransport({ adapter }).engine()
  await assert.rejects(throwing.open(), /the adapter factory failed: not made in these tests/)
  const wrong = queueTransport({ adapter: () => ({}) as QueueAdapter }).worker()
  await assert.rejects(wrong.open(), /did not make a @boringnode\/queue adapter/)
})

void test('an unreachable store fails open(), leaves nothing open, and open() can try again', async () => {
  let made = 0
  const unreachable = redis({
    host: '127.0.0.1',
    port: 1,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    lazyConnect: true,
  })
  const factory: QueueAdapterFactory = () => {
    made += 1
    return unreachable()
  }
  const half = queueTransport({ adapter: factory }).engine()
  await assert.rejects(half.open(), /cannot reach the queue adapter's store/)
  await assert.rejects(half.open(), /cannot reach the queue adapter's store/)
  assert.equal(made, 2, 'a failed open is forgotten: the second open made a new adapter')
  await assert.rejects(half.publish([]), /open\(\) the queue transport first/)
  await half.close()
})

void test('the sync adapter is refused at open: it cannot carry tasks to workers', async () => {
  const { sync } = await import('@boringnode/queue/drivers/sync_adapter')
  const half = queueTransport({ adapter: sync() as unknown as QueueAdapterFactory }).worker()
  await assert.rejects(half.open(), /the sync adapter .* cannot carry tasks to workers/)
})
