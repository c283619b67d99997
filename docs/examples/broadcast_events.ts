/**
 * docs/broadcast_events.md's example, runnable: shipments waiting for the payment of their
 * order, one broadcast event reaching only the run whose match holds.
 */
import assert from 'node:assert/strict'
import { EventTimeoutError } from '@cairn/core'
import { createTestEngine } from '@cairn/core/testing'

type Payment = { order: { id: string }; amount: number }

const t = await createTestEngine()
t.engine.register('ship', 1, async (ctx, orderId: string) => {
  try {
    const paid = await ctx.waitForEvent<Payment>('payment.received', {
      match: { 'order.id': orderId },
      timeoutMs: 24 * 3_600_000,
    })
    return `shipping ${orderId} (paid ${paid.amount})`
  } catch (error) {
    if (EventTimeoutError.is(error)) return `cancelled ${orderId}: unpaid after 24 h`
    throw error
  }
})

const a = await t.engine.start('ship', 'A-1')
const b = await t.engine.start('ship', 'B-2')
await t.skipTime('1h') // both runs are waiting now

// The payment service publishes; it does not need to know which runs wait.
const published = await t.engine.publishEvent(
  'payment.received',
  { order: { id: 'A-1' }, amount: 40 },
  { eventId: 'payment-9001' }, // a retried publish with this id reaches each wait once
)
assert.equal(published.delivered, 1)
const retried = await t.engine.publishEvent(
  'payment.received',
  { order: { id: 'A-1' }, amount: 40 },
  { eventId: 'payment-9001' },
)
assert.equal(retried.delivered, 0)

assert.deepEqual(await t.engine.waitForRun(a.runId), {
  runId: a.runId,
  status: 'completed',
  output: 'shipping A-1 (paid 40)',
})
await t.skipTime('24h')
const unpaid = await t.engine.waitForRun(b.runId)
assert.equal(unpaid.status === 'completed' && unpaid.output, 'cancelled B-2: unpaid after 24 h')
await t.close()
console.log('one shipment released by a broadcast payment event, one cancelled unpaid')
