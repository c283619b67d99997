/**
 * Schedules: a repeated firing with a non-deterministic input keeps overlap skip.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { StateStore } from '@cairn/core'
import { world } from './world.ts'

const MINUTE = 60_000

function failingAdvance(store: StateStore, lose: () => boolean): StateStore {
  return new Proxy(store, {
    get(target, key, receiver) {
      if (key === 'advanceSchedule')
        return (...args: Parameters<StateStore['advanceSchedule']>) =>
          lose()
            ? Promise.reject(new Error('died before its advance'))
            : target.advanceSchedule(...args)
      const value = Reflect.get(target, key, receiver) as unknown
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
}

void test('a repeated firing with a non-deterministic input keeps overlap skip', async () => {
  const w = world()
  try {
    let lose = true
    const engine = await w.engine({ leaseMs: 10_000, store: failingAdvance(w.store, () => lose) })
    engine.register('hold', 1, async (ctx) => {
      await ctx.waitForSignal('go')
    })
    const t0 = w.clock.now()
    await engine.schedule('s', {
      workflow: 'hold',
      everyMs: MINUTE,
      overlap: 'skip',
      input: ({ scheduledAt }) => ({
        window: scheduledAt.toISOString(),
        computedAt: w.clock.now(),
      }),
    })
    await w.skip(MINUTE) // W1 starts; its advance is lost
    lose = false
    await w.skip(10_000) // lease lapses: the firing is repeated
    await w.skip(MINUTE) // W2 is due while W1's run is still open
    const { runs } = await engine.listRuns({ workflow: 'hold', limit: 100 })
    const open = runs.filter(
      (r) => r.status === 'waiting' || r.status === 'running' || r.status === 'pending',
    )
    assert.equal(open.length, 1, "overlap 'skip': one open run at a time")
    assert.equal(
      (await engine.getSchedule('s'))?.lastRunId,
      `sch:s:${new Date(t0 + MINUTE).toISOString()}`,
    )
  } finally {
    await w.close()
  }
})
