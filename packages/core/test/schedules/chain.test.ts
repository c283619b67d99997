/**
 * Schedules: overlap 'skip' holds while a long continueAsNew chain is still open.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { world } from './world.ts'

const HOUR = 3_600_000

void test("overlap 'skip' holds while a long continueAsNew chain is still open", async () => {
  const w = world()
  try {
    const engine = await w.engine()
    engine.register('poller', 1, async (ctx, n: number | null) => {
      const k = n ?? 0
      if (k < 150) return ctx.continueAsNew(k + 1)
      await ctx.waitForSignal('go')
      return k
    })
    const t0 = w.clock.now()
    await engine.schedule('s', { workflow: 'poller', everyMs: HOUR, overlap: 'skip' })
    await w.skip(HOUR)
    for (let i = 0; i < 50; i++) await w.skip(10)
    await w.skip(HOUR)
    for (let i = 0; i < 50; i++) await w.skip(10)
    const after = (await engine.listRuns({ workflow: 'poller', limit: 1000 })).runs
    assert.ok(
      !after.some((r) => r.id === `sch:s:${new Date(t0 + 2 * HOUR).toISOString()}`),
      'W2 is skipped while W1 is open',
    )
  } finally {
    await w.close()
  }
})
