/** docs/sagas.md's example, runnable: a checkout that refunds and releases stock when shipping fails. */
import assert from 'node:assert/strict'
import { FatalError } from '@cairn/core'
import { createTestEngine } from '@cairn/core/testing'

const t = await createTestEngine()
const ledger: string[] = []
t.engine.register('checkout', 1, async (ctx, order: { sku: string; amount: number }) => {
  const hold = await ctx.localStep('reserve', () => `hold-${order.sku}`, {
    compensate: (id) => ledger.push(`released ${id}`),
  })
  const charge = await ctx.localStep('charge', () => `charge-${order.amount}`, {
    compensate: (id) => ledger.push(`refunded ${id}`),
  })
  await ctx.localStep('ship', () => {
    throw new FatalError('no carrier for this address')
  })
  return { hold, charge }
})

const { runId } = await t.engine.start('checkout', { sku: 'tea', amount: 12 })
const outcome = await t.engine.waitForRun(runId)
assert.equal(outcome.status, 'failed')
assert.deepEqual(ledger, ['refunded charge-12', 'released hold-tea'])
await t.close()
console.log(`shipping failed; undone in reverse: ${ledger.join(', ')}`)
