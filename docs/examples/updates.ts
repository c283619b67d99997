/** docs/updates.md's example, runnable: a booking whose guest count can be changed, within limits. */
import assert from 'node:assert/strict'
import { createTestEngine } from '@cairn/core/testing'

const t = await createTestEngine()
t.engine.register('booking', 1, async (ctx, guests: number) => {
  const changed = await ctx.onUpdate<number>('guests', {
    validate: (n) => (Number.isInteger(n) && n >= 1 && n <= 8) || 'between 1 and 8 guests',
    timeoutMs: 3_600_000,
  })
  return `table for ${changed} (was ${guests})`
})

const { runId } = await t.engine.start('booking', 2)
await t.skipTime('1m')
const rejected = await t.engine.update(runId, 'guests', 12)
assert.deepEqual([rejected.accepted, rejected.reason], [false, 'between 1 and 8 guests'])
const accepted = await t.engine.update(runId, 'guests', 4)
assert.equal(accepted.accepted, true)
assert.deepEqual(await t.engine.waitForRun(runId), {
  runId,
  status: 'completed',
  output: 'table for 4 (was 2)',
})
await t.close()
console.log('12 guests rejected with a reason; 4 accepted')
