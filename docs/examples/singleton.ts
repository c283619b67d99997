/**
 * docs/flow-control.md's example, runnable: one checkout per cart. A second start on a busy
 * cart waits in the cart's queue and runs when the first ends; with `onFull: 'reject'` it is
 * refused with E_SINGLETON_FULL instead, and nothing is created.
 */
import assert from 'node:assert/strict'
import { createTestEngine } from '@cairn/core/testing'

interface Checkout {
  cartId: string
  total: number
}

const t = await createTestEngine()
const { engine } = t
engine.register(
  'checkout',
  1,
  async (ctx, order: Checkout) => {
    await ctx.waitForSignal('paid') // the payment provider calls back
    return `cart ${order.cartId} paid ${order.total}`
  },
  { singleton: { key: (order: Checkout) => order.cartId } },
)

const first = await engine.start('checkout', { cartId: 'cart-7', total: 30 })
const second = await engine.start('checkout', { cartId: 'cart-7', total: 45 })
const other = await engine.start('checkout', { cartId: 'cart-9', total: 12 })
assert.equal(second.queued, true) // cart-7 is busy: the second checkout waits
assert.equal(other.queued, undefined) // another cart has its own slot
assert.equal((await engine.getRun(second.runId))?.status, 'queued')

await engine.signal({ runId: first.runId, name: 'paid' }, null)
await engine.waitForRun(first.runId)
// The first checkout's end promoted the second, in the same write: it runs now.
await engine.signal({ runId: second.runId, name: 'paid' }, null)
const done = await engine.waitForRun(second.runId, { timeoutMs: 5_000 })
assert.deepEqual(done, { runId: second.runId, status: 'completed', output: 'cart cart-7 paid 45' })

// The same bound, refusing instead of queueing.
engine.register('refund', 1, async (ctx) => ctx.waitForSignal('done'), {
  singleton: { key: (input: { cartId: string }) => input.cartId, onFull: 'reject' },
})
await engine.start('refund', { cartId: 'cart-7' })
await assert.rejects(engine.start('refund', { cartId: 'cart-7' }), {
  code: 'E_SINGLETON_FULL',
  details: { workflow: 'refund', key: 'cart-7', limit: 1, admitted: 1, queued: 0 },
})
await t.close()
console.log('cart-7: two checkouts one after the other; a second refund refused')
