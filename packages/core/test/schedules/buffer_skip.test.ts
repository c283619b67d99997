/**
 * Schedules: a buffered window whose input throws is counted skipped, not fired.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { world } from './world.ts'

const MINUTE = 60_000

void test('a buffered window whose input throws is counted skipped, not fired', async () => {
  const w = world()
  try {
    const engine = await w.engine()
    engine.register('hold', 1, async (ctx) => {
      await ctx.waitForSignal('go')
    })
    const t0 = w.clock.now()
    const w1 = `sch:s:${new Date(t0 + MINUTE).toISOString()}`
    await engine.schedule('s', {
      workflow: 'hold',
      everyMs: MINUTE,
      overlap: 'bufferOne',
      input: ({ scheduledAt }) => {
        if (scheduledAt.getTime() === t0 + 2 * MINUTE) throw new Error('no input for W2')
        return null
      },
    })
    await w.skip(2 * MINUTE) // W1 runs, W2 held
    await engine.signal({ runId: w1, name: 'go' }, null)
    await w.skip(2_000) // the held W2 "starts": its input throws
    const info = await engine.getSchedule('s')
    assert.deepEqual([info?.fired, info?.skipped], [1, 1], 'W1 fired; W2 skipped (input)')
    assert.equal(info?.lastRunId, w1, 'lastRunId still names the last run started')
  } finally {
    await w.close()
  }
})
