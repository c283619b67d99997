/**
 * Named queue gauges read at scrape time (engine.queueStats()): per registered queue, the
 * steps running, waiting and throttled, the slots leased, the concurrency, the rate, and the oldest waiter's age — from the store,
 * so a second engine's steps count too; a registered queue no step used yet reads as zeros.
 */
import assert from 'node:assert/strict'
import { createMetrics } from '../../src/metrics/index.ts'
import { eachStore } from '../../../../tests/helpers/harness.ts'
import { parseExposition, valueOf } from './exposition.ts'

eachStore('metrics named queues', (test) => {
  test('a queue with slot leases shows the leased slots', async (env) => {
    const hold = Promise.withResolvers<void>()
    const worker = await env.engine()
    worker.registerQueue('enrich', { concurrency: 3, slotLeases: true })
    worker.registerStep('call', async () => hold.promise)
    worker.register('look', 1, async (ctx) => ctx.step('call', null, { queue: 'enrich' }))
    for (let i = 0; i < 2; i++) await worker.start('look', null)
    await env.settle()
    const watcher = await env.engine({ drive: false })
    watcher.registerQueue('enrich', { concurrency: 3 })
    const metrics = createMetrics(watcher, { backlogCacheMs: 0 })
    const parsed = parseExposition(await metrics.render())
    const at = (state: string) => valueOf(parsed, 'cairn_queue_slots', { queue: 'enrich', state })
    assert.deepEqual([at('leased'), at('running'), at('waiting')], [2, 0, 0])
    metrics.close()
    hold.resolve()
  })

  test('gauges show running and waiting steps, the concurrency and the oldest wait', async (env) => {
    const hold = Promise.withResolvers<void>()
    const worker = await env.engine()
    worker.registerQueue('carrier', { concurrency: 1 })
    worker.registerStep('call', async () => hold.promise)
    worker.register('ship', 1, async (ctx) => ctx.step('call', null, { queue: 'carrier' }))
    for (let i = 0; i < 3; i++) await worker.start('ship', null)
    await env.settle()
    const watcher = await env.engine({ drive: false })
    watcher.registerQueue('carrier', { concurrency: 1 })
    watcher.registerQueue('idle', { concurrency: 7 })
    const metrics = createMetrics(watcher, { backlogCacheMs: 0 })
    await env.clock.advance(4_000)
    const parsed = parseExposition(await metrics.render())
    const at = (name: string, labels: Record<string, string>) => valueOf(parsed, name, labels)
    assert.equal(at('cairn_queue_slots', { queue: 'carrier', state: 'running' }), 1)
    assert.equal(at('cairn_queue_slots', { queue: 'carrier', state: 'waiting' }), 2)
    assert.equal(at('cairn_queue_concurrency', { queue: 'carrier' }), 1)
    assert.equal(at('cairn_queue_oldest_waiting_age_seconds', { queue: 'carrier' }), 4)
    assert.equal(at('cairn_queue_slots', { queue: 'idle', state: 'waiting' }), 0)
    assert.equal(at('cairn_queue_concurrency', { queue: 'idle' }), 7, 'as registered')
    assert.equal(valueOf(parsed, 'cairn_queue_stats_read_errors_total'), 0)
    metrics.close()
    hold.resolve()
  })

  test('a rate-limited queue shows its limit, recent grants and throttled steps', async (env) => {
    const rateLimit = { limit: 2, periodMs: 60_000 }
    const hold = Promise.withResolvers<void>()
    const worker = await env.engine()
    worker.registerQueue('payments', { concurrency: 10, rateLimit })
    worker.registerStep('charge', async () => hold.promise)
    worker.register('pay', 1, async (ctx) => ctx.step('charge', null, { queue: 'payments' }))
    for (let i = 0; i < 5; i++) await worker.start('pay', null)
    await env.settle()
    const metrics = createMetrics(worker, { backlogCacheMs: 0 })
    const parsed = parseExposition(await metrics.render())
    const at = (name: string, labels: Record<string, string>) => valueOf(parsed, name, labels)
    assert.equal(at('cairn_queue_slots', { queue: 'payments', state: 'running' }), 2)
    assert.equal(at('cairn_queue_throttled', { queue: 'payments' }), 3, 'free slots, no rate')
    assert.equal(at('cairn_queue_rate_recent_grants', { queue: 'payments' }), 2)
    assert.equal(at('cairn_queue_rate_limit', { queue: 'payments', period_ms: '60000' }), 2)
    metrics.close()
    hold.resolve()
    await worker.close(0)
  })
})
