/**
 * The crash test: `kill -9` the shop in the middle of a checkout, start it again on
 * the same database, finish the checkout, and check that the card was charged exactly once
 * and the order completed.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  awaitingApproval,
  finished,
  orderWhen,
  placeOrder,
  post,
  stockOf,
} from './helpers/shop_client.ts'
import { startShop, tempDatabase } from './helpers/shop_server.ts'

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the order's JSON
const charges = (order: any) => order.payments.filter((p: any) => p.kind === 'charge')

void test('kill -9 while an order waits for approval (after the charge): restarted, approved, charged once', async (t) => {
  const database = await tempDatabase(t)
  const first = await startShop(t, { SQLITE_FILE: database })
  const stockBefore = await stockOf(first.url, 'espresso')
  const orderId = await placeOrder(first.url, 'espresso', 1)
  await orderWhen(first.url, orderId, awaitingApproval)
  await first.crash()

  const second = await startShop(t, { SQLITE_FILE: database })
  const approved = await post(`${second.url}/orders/${orderId}/approve`, { by: 'grace' })
  assert.equal(approved.status, 202, JSON.stringify(approved.body))
  const order = await orderWhen(second.url, orderId, finished)

  assert.equal(order.run.status, 'completed', JSON.stringify(order))
  assert.equal(order.status, 'completed')
  assert.equal(charges(order).length, 1)
  // The restarted server replayed the recorded charge: the gateway was called once in all.
  assert.deepEqual(
    order.gatewayCalls.map((c: { operation: string; outcome: string }) => c.outcome),
    ['accepted'],
  )
  assert.notEqual(order.shipment, null)
  assert.equal(await stockOf(second.url, 'espresso'), stockBefore - 1)
})

void test('kill -9 inside the charge step (money moved, result not recorded): restarted, charged once', async (t) => {
  const database = await tempDatabase(t)
  // The gateway charges, then the step hangs before returning: its result is never recorded.
  const first = await startShop(t, { SQLITE_FILE: database, SHOP_FAULT: 'hang-after-charge' })
  const stockBefore = await stockOf(first.url, 'mug')
  const orderId = await placeOrder(first.url, 'mug', 3)
  await first.printed(/SHOP_FAULT reached: hang-after-charge/)
  await first.crash()

  const second = await startShop(t, { SQLITE_FILE: database })
  const order = await orderWhen(second.url, orderId, finished)

  assert.equal(order.run.status, 'completed', JSON.stringify(order))
  assert.equal(order.status, 'completed')
  // The step ran again after the restart (at-least-once) with the same idempotency key, and
  // the gateway answered with the first charge: two calls, one charge.
  const calls = order.gatewayCalls as Array<{ outcome: string; idempotencyKey: string }>
  assert.deepEqual(
    calls.map((c) => c.outcome),
    ['accepted', 'replayed'],
  )
  assert.equal(calls[0]!.idempotencyKey, calls[1]!.idempotencyKey)
  assert.equal(charges(order).length, 1)
  assert.equal(order.run.output.chargeId, charges(order)[0].id)
  assert.equal(await stockOf(second.url, 'mug'), stockBefore - 3)
})
