/**
 * Schedules: resume of a running schedule keeps its held window.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { world } from './world.ts'

const MINUTE = 60_000

void test('resume of a running schedule keeps its held window', async () => {
  const w = world()
  try {
    const engine = await w.engine()
    engine.register('hold', 1, async (ctx) => {
      await ctx.waitForSignal('go')
    })
    const t0 = w.clock.now()
    await engine.schedule('s', { workflow: 'hold', everyMs: MINUTE, overlap: 'bufferOne' })
    await w.skip(2 * MINUTE) // W1 runs, W2 held
    assert.equal((await engine.getSchedule('s'))?.bufferedWindowAt?.getTime(), t0 + 2 * MINUTE)
    await engine.resumeSchedule('s') // not paused: should change nothing
    await engine.signal({ runId: `sch:s:${new Date(t0 + MINUTE).toISOString()}`, name: 'go' }, null)
    await w.skip(2_000)
    const { runs } = await engine.listRuns({ workflow: 'hold', limit: 100 })
    assert.ok(
      runs.some((r) => r.id === `sch:s:${new Date(t0 + 2 * MINUTE).toISOString()}`),
      'the held W2 starts',
    )
  } finally {
    await w.close()
  }
})
