/** docs/breakpoints.md's example, runnable: a refund that waits for an operator's go-ahead. */
import assert from 'node:assert/strict'
import { createTestEngine } from '@cairn/core/testing'

const t = await createTestEngine()
const refunded: number[] = []
t.engine.register('refund', 1, async (ctx, amount: number) => {
  if (amount > 500) {
    const note = await ctx.breakpoint<{ by: string }>('large-refund')
    await ctx.localStep('log', () => console.log(`large refund approved by ${note?.by}`))
  }
  await ctx.localStep('refund', () => refunded.push(amount))
  return 'refunded'
})

const { runId } = await t.engine.start('refund', 900)
await t.skipTime('1d')
assert.deepEqual(refunded, []) // stopped at the breakpoint, however long it takes
const run = await t.engine.getRun(runId)
assert.equal(run?.waitingOn, 'breakpoint "large-refund"')

await t.engine.continue(runId, { note: { by: 'grace' } })
assert.deepEqual(await t.engine.waitForRun(runId), {
  runId,
  status: 'completed',
  output: 'refunded',
})
assert.deepEqual(refunded, [900])
await t.close()
console.log('refund continued by an operator')
