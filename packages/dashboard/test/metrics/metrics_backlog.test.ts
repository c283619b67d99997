/**
 * Backlog gauges read at scrape time: right values, one store read for a storm of scrapes,
 * and a store that fails or hangs still gets an answer (last values kept, errors counted).
 */
import assert from 'node:assert/strict'
import type { RunBacklog, StateStore } from '@cairn/core/contracts'
import { createMetrics } from '../../src/metrics/index.ts'
import { eachStore } from '../../../../tests/helpers/harness.ts'
import { parseExposition, valueOf } from './exposition.ts'
import { silentLogger } from '@cairn/core'

/** The store, with backlog() counted and switchable to fail or hang. */
function controlled(store: StateStore) {
  const control = { calls: 0, mode: 'ok' as 'ok' | 'fail' | 'hang' }
  const wrapped = new Proxy(store, {
    get(target, property) {
      if (property === 'backlog')
        return (now: number): Promise<RunBacklog> => {
          control.calls += 1
          if (control.mode === 'fail') return Promise.reject(new Error('store down'))
          if (control.mode === 'hang') return new Promise(() => {})
          return target.backlog(now)
        }
      const value: unknown = Reflect.get(target, property, target)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
  return { wrapped, control }
}

async function scrape(metrics: { render(): Promise<string> }) {
  const parsed = parseExposition(await metrics.render())
  return {
    pending: valueOf(parsed, 'cairn_runs_pending'),
    waiting: valueOf(parsed, 'cairn_runs_waiting'),
    blocked: valueOf(parsed, 'cairn_runs_blocked'),
    due: valueOf(parsed, 'cairn_timers_due'),
    age: valueOf(parsed, 'cairn_oldest_pending_age_seconds'),
    errors: valueOf(parsed, 'cairn_backlog_read_errors_total'),
  }
}

eachStore('metrics backlog', (test) => {
  test('gauges show pending, waiting, due timers and the oldest pending age', async (env) => {
    const sleeper = await env.engine()
    // Ten minutes: far beyond the timers an engine holds in-process, so the runs suspend.
    sleeper.register('nap', 1, async (ctx) => ctx.sleep(600_000))
    await sleeper.start('nap', null)
    await sleeper.start('nap', null)
    await env.settle()
    await sleeper.drain(1_000) // the two runs stay waiting: no engine drives them now
    const idle = await env.engine({ drive: false })
    const metrics = createMetrics(idle, { backlogCacheMs: 0 })
    const empty = { pending: 0, waiting: 2, blocked: 0, due: 0, age: 0, errors: 0 }
    assert.deepEqual(await scrape(metrics), empty)
    idle.register('later', 1, async () => 'done')
    await idle.start('later', null)
    await env.clock.advance(1_500)
    await idle.start('later', null)
    await env.clock.advance(500)
    const young = { pending: 2, waiting: 2, blocked: 0, due: 0, age: 2, errors: 0 }
    assert.deepEqual(await scrape(metrics), young, 'the oldest pending run was created 2 s ago')
    await env.clock.advance(600_000)
    const late = { pending: 2, waiting: 2, blocked: 0, due: 2, age: 602, errors: 0 }
    assert.deepEqual(await scrape(metrics), late, 'both sleeps are over')
    metrics.close()
  })

  test('a storm of scrapes reads the store once per cache period', async (env) => {
    const { wrapped, control } = controlled(env.handle.store)
    const engine = await env.engine({ store: wrapped, drive: false })
    engine.register('later', 1, async () => 'done')
    await engine.start('later', null)
    const metrics = createMetrics(engine, { backlogCacheMs: 60_000 })
    const results = await Promise.all(Array.from({ length: 20 }, () => scrape(metrics)))
    assert.equal(control.calls, 1, 'one read for twenty concurrent scrapes')
    assert.ok(results.every((r) => r.pending === 1))
    await scrape(metrics)
    assert.equal(control.calls, 1, 'a later scrape within the period reads nothing')
    metrics.close()
  })

  test('a failing or hanging store: the scrape answers, gauges keep values, errors count', async (env) => {
    const { wrapped, control } = controlled(env.handle.store)
    const engine = await env.engine({ store: wrapped, drive: false })
    engine.register('later', 1, async () => 'done')
    await engine.start('later', null)
    const metrics = createMetrics(engine, { backlogCacheMs: 0, backlogTimeoutMs: 50 })
    // Only pending and the error count move here; the rest stays 0 throughout.
    const expect = async (pending: number, errors: number, what: string) =>
      assert.deepEqual(
        await scrape(metrics),
        { pending, waiting: 0, blocked: 0, due: 0, age: 0, errors },
        what,
      )
    await expect(1, 0, 'a healthy read')
    await engine.start('later', null)
    control.mode = 'fail'
    await expect(1, 1, 'a failed read keeps the last values and counts an error')
    control.mode = 'hang'
    await expect(1, 2, 'a read past the timeout too')
    control.mode = 'ok'
    await expect(2, 2, 'the store answers again')
    metrics.close()
  })

  test('a failed read is logged at warn and the store is not asked again within the period', async (env) => {
    const { wrapped, control } = controlled(env.handle.store)
    const warned: string[] = []
    const logger = { ...silentLogger, warn: (_: object, message: string) => warned.push(message) }
    const engine = await env.engine({ store: wrapped, drive: false, logger })
    const metrics = createMetrics(engine, { backlogCacheMs: 60_000 })
    control.mode = 'fail'
    assert.equal((await scrape(metrics)).errors, 1)
    assert.equal((await scrape(metrics)).errors, 1, 'the failure is cached like a reading')
    assert.equal(control.calls, 1)
    assert.deepEqual(warned, ['cairn metrics: reading the backlog failed'])
    metrics.close()
  })
})
