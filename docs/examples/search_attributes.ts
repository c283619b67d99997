/** docs/search_attributes.md's example, runnable: orders found by customer, amount and stage. */
import assert from 'node:assert/strict'
import type { StandardSchemaV1 } from '@cairn/core/contracts'
import { createTestEngine } from '@cairn/core/testing'

// Any Standard Schema works (zod, valibot, arktype, …); this one is written by hand.
const orderAttributes: StandardSchemaV1 = {
  '~standard': {
    version: 1,
    vendor: 'example',
    validate: (value) => {
      const amount = (value as { amount?: unknown }).amount
      return amount === undefined || (typeof amount === 'number' && amount >= 0)
        ? { value }
        : { issues: [{ message: 'must be a number >= 0', path: ['amount'] }] }
    },
  },
}

const t = await createTestEngine()
t.engine.register(
  'order',
  1,
  async (ctx, order: { customer: string; amount: number }) => {
    await ctx.upsertSearchAttributes({
      customer: order.customer,
      amount: order.amount,
      placedAt: ctx.now(),
      stage: 'awaiting payment',
    })
    await ctx.sleep('1h') // the customer pays meanwhile
    await ctx.upsertSearchAttributes({ stage: 'paid' })
    try {
      await ctx.upsertSearchAttributes({ amount: -1 })
    } catch (error) {
      // E_INVALID_ARGUMENT, details.issues = [{ message: 'must be a number >= 0', path: ['amount'] }]
      assert.equal((error as { code?: string }).code, 'E_INVALID_ARGUMENT')
    }
    return 'shipped'
  },
  { searchAttributes: orderAttributes },
)

const small = await t.engine.start('order', { customer: 'acme', amount: 40 })
const big = await t.engine.start('order', { customer: 'acme', amount: 900 })
await t.engine.start('order', { customer: 'globex', amount: 700 })
await t.skipTime('1m')

// Acme's orders above 100 still waiting for payment: one query, evaluated by the store.
const page = await t.engine.listRuns({
  status: 'waiting',
  searchAttributes: { customer: 'acme', amount: { gt: 100 }, stage: 'awaiting payment' },
})
assert.deepEqual(
  page.runs.map((run) => run.id),
  [big.runId],
)
assert.equal(page.runs[0]?.searchAttributes.amount, 900)
assert.ok(page.runs[0]?.searchAttributes.placedAt instanceof Date)

await t.skipTime('1h')
await t.engine.waitForRun(small.runId)
const paid = await t.engine.listRuns({ searchAttributes: { stage: 'paid' } })
assert.equal(paid.runs.length, 3)
await t.close()
console.log('found acme orders by customer, amount and stage')
