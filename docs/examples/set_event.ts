/** docs/published_state.md's example, runnable: a checkout that publishes its stage and a link. */
import assert from 'node:assert/strict'
import { createTestEngine } from '@cairn/core/testing'

const t = await createTestEngine()
t.engine.register('checkout', 1, async (ctx, order: string) => {
  await ctx.setEvent('stage', 'awaiting payment')
  await ctx.setEvent('payment-link', `https://pay.example/${order}`)
  await ctx.sleep('15m') // the customer pays meanwhile
  await ctx.setEvent('stage', 'paid')
  return 'ok'
})

const { runId } = await t.engine.start('checkout', 'order-7')
// A web page polls the run's published state:
assert.equal(
  await t.engine.getEvent(runId, 'payment-link', { timeoutMs: 1_000 }),
  'https://pay.example/order-7',
)
assert.equal(await t.engine.getEvent(runId, 'stage'), 'awaiting payment')
await t.skipTime('15m')
await t.engine.waitForRun(runId)
assert.equal(await t.engine.getEvent(runId, 'stage'), 'paid')
await t.close()
console.log('checkout published its stage and payment link')
