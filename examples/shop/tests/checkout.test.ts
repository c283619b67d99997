/**
 * The shop over HTTP, on a real server process and a fresh SQLite database per test: orders
 * that complete, wait for approval, are rejected or time out, fail at a step; and bad input.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  awaitingApproval,
  DECLINED,
  finished,
  get,
  orderWhen,
  placeOrder,
  post,
  stockOf,
  VISA,
} from './helpers/shop_client.ts'
import { startShop, tempDatabase } from './helpers/shop_server.ts'

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the order's JSON
const charges = (order: any) => order.payments.filter((p: any) => p.kind === 'charge')
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the order's JSON
const refunds = (order: any) => order.payments.filter((p: any) => p.kind === 'refund')

void test('an order completes: stock reserved, card charged once, shipped', async (t) => {
  const shop = await startShop(t, { SQLITE_FILE: await tempDatabase(t) })
  const stockBefore = await stockOf(shop.url, 'mug')
  const orderId = await placeOrder(shop.url, 'mug', 2)

  const order = await orderWhen(shop.url, orderId, finished)
  assert.equal(order.run.status, 'completed', JSON.stringify(order))
  assert.equal(order.status, 'completed')
  assert.equal(order.amountCents, 2 * 1_200)
  assert.deepEqual(
    charges(order).map((p: { amountCents: number }) => p.amountCents),
    [2_400],
  )
  assert.deepEqual(refunds(order), [])
  assert.match(order.shipment.trackingNumber, /^TRK-/)
  assert.deepEqual(order.reservation, { sku: 'mug', quantity: 2, released: false })
  assert.equal(await stockOf(shop.url, 'mug'), stockBefore - 2)

  const { status, body } = await get(`${shop.url}/orders/${orderId}/timeline`)
  assert.equal(status, 200)
  assert.deepEqual(
    body.steps.map(
      (s: { step: string; kind: string; status: string }) => `${s.kind}:${s.step}:${s.status}`,
    ),
    [
      // The order's row, written with the first checkpoint; step classes in app/steps
      // (registered steps); the transactional completion.
      'transaction:record-order:completed',
      'step:reserve-stock:completed',
      'step:charge-card:completed',
      'step:ship:completed',
      'transaction:complete-order:completed',
    ],
  )
})

void test('an order above the threshold waits for approval; approved, it completes', async (t) => {
  const shop = await startShop(t, { SQLITE_FILE: await tempDatabase(t) })
  const orderId = await placeOrder(shop.url, 'espresso', 1)
  const waiting = await orderWhen(shop.url, orderId, awaitingApproval)
  assert.equal(waiting.needsApproval, true)
  assert.equal(charges(waiting).length, 1) // charged before the wait
  assert.equal(waiting.shipment, null)

  const approved = await post(`${shop.url}/orders/${orderId}/approve`, { by: 'grace' })
  assert.equal(approved.status, 202)
  assert.deepEqual(approved.body, { orderId, decision: 'approved', by: 'grace' })

  const order = await orderWhen(shop.url, orderId, finished)
  assert.equal(order.run.status, 'completed', JSON.stringify(order))
  assert.equal(order.status, 'completed')
  assert.equal(order.approvedBy, 'grace')
  assert.equal(charges(order).length, 1)
  assert.deepEqual(refunds(order), [])
  assert.notEqual(order.shipment, null)

  // The first decision wins; a second one is refused either way.
  const again = await post(`${shop.url}/orders/${orderId}/reject`, {})
  assert.equal(again.status, 409)
  assert.ok(['E_ALREADY_DECIDED', 'E_ORDER_CLOSED'].includes(again.body.errors[0].code))
})

void test('one checkout per cart: a second order of a busy cart is refused, creating nothing; once it ends, the cart takes orders again', async (t) => {
  const shop = await startShop(t, { SQLITE_FILE: await tempDatabase(t) })
  const order = (sku: string, cartId: string) =>
    post(`${shop.url}/orders`, { sku, quantity: 1, card: VISA, cartId })
  const first = await order('espresso', 'cart-7')
  assert.equal(first.status, 202)
  await orderWhen(shop.url, first.body.orderId, awaitingApproval) // holds cart-7's slot
  const busy = await order('mug', 'cart-7')
  assert.equal(busy.status, 409)
  assert.deepEqual(busy.body.errors, [
    {
      code: 'E_CART_BUSY',
      message: 'Cart cart-7 has a checkout in progress: place the order again once it has finished',
    },
  ])
  const runs = await get(`${shop.url}/durable/api/runs?workflow=checkout`)
  assert.equal(runs.body.runs.length, 1, 'the refused order started no run')
  const other = await order('mug', 'cart-9')
  assert.equal(other.status, 202, 'another cart is not held up')
  await post(`${shop.url}/orders/${first.body.orderId}/approve`, { by: 'grace' })
  await orderWhen(shop.url, first.body.orderId, finished)
  const again = await order('mug', 'cart-7')
  assert.equal(again.status, 202, JSON.stringify(again.body))
  assert.equal((await orderWhen(shop.url, again.body.orderId, finished)).status, 'completed')
})

void test('a rejected order is undone: refunded, stock released', async (t) => {
  const shop = await startShop(t, { SQLITE_FILE: await tempDatabase(t) })
  const stockBefore = await stockOf(shop.url, 'espresso')
  const orderId = await placeOrder(shop.url, 'espresso', 2)
  await orderWhen(shop.url, orderId, awaitingApproval)
  assert.equal(await stockOf(shop.url, 'espresso'), stockBefore - 2)

  const rejected = await post(`${shop.url}/orders/${orderId}/reject`, { by: 'ada' })
  assert.equal(rejected.status, 202)
  const order = await orderWhen(shop.url, orderId, finished)
  assert.equal(order.run.status, 'failed', JSON.stringify(order))
  assert.equal(order.status, 'failed')
  assert.match(order.failureReason, /Rejected by ada/)
  assert.deepEqual(
    refunds(order).map((p: { amountCents: number }) => p.amountCents),
    [2 * 89_900],
  )
  assert.equal(order.reservation.released, true)
  assert.equal(order.shipment, null)
  assert.equal(await stockOf(shop.url, 'espresso'), stockBefore)

  const { body } = await get(`${shop.url}/orders/${orderId}/timeline`)
  const names = body.steps.map((s: { step: string }) => s.step)
  // Undone newest first: the refund, then the stock.
  assert.deepEqual(names.slice(-2), ['compensate:charge-card', 'compensate:reserve-stock'])
})

void test('an order nobody approves in time is undone', async (t) => {
  const shop = await startShop(t, {
    SQLITE_FILE: await tempDatabase(t),
    SHOP_APPROVAL_TIMEOUT_MS: '500',
  })
  const stockBefore = await stockOf(shop.url, 'espresso')
  const orderId = await placeOrder(shop.url, 'espresso', 1)
  const order = await orderWhen(shop.url, orderId, finished)
  assert.equal(order.run.status, 'failed', JSON.stringify(order))
  assert.match(order.failureReason, /Nobody approved the order within 500 ms/)
  assert.equal(charges(order).length, 1)
  assert.equal(refunds(order).length, 1)
  assert.equal(order.reservation.released, true)
  assert.equal(await stockOf(shop.url, 'espresso'), stockBefore)

  const late = await post(`${shop.url}/orders/${orderId}/approve`, {})
  assert.equal(late.status, 409)
  assert.equal(late.body.errors[0].code, 'E_ORDER_CLOSED')
})

void test('a step that fails undoes the earlier ones: the carrier refuses, the card is refunded', async (t) => {
  const shop = await startShop(t, { SQLITE_FILE: await tempDatabase(t) })
  const stockBefore = await stockOf(shop.url, 'vase')
  const shipped = await placeOrder(shop.url, 'vase', 1)
  const declined = await placeOrder(shop.url, 'mug', 1, DECLINED)

  const vase = await orderWhen(shop.url, shipped, finished)
  assert.equal(vase.run.status, 'failed', JSON.stringify(vase))
  assert.equal(vase.run.error.code, 'E_FATAL')
  assert.match(vase.failureReason, /carrier refuses to ship vase/)
  assert.equal(charges(vase).length, 1)
  assert.equal(refunds(vase).length, 1)
  assert.equal(vase.reservation.released, true)
  assert.equal(await stockOf(shop.url, 'vase'), stockBefore)

  // A declined card: nothing charged, so only the stock is given back.
  const mug = await orderWhen(shop.url, declined, finished)
  assert.equal(mug.run.status, 'failed', JSON.stringify(mug))
  assert.match(mug.failureReason, /card was declined/)
  assert.deepEqual(mug.payments, [])
  assert.deepEqual(
    mug.gatewayCalls.map((c: { outcome: string }) => c.outcome),
    ['declined'],
  )
  assert.equal(mug.reservation.released, true)

  // Not enough stock: the first step fails, so nothing is charged and nothing needs undoing.
  const tooMany = await placeOrder(shop.url, 'espresso', 11)
  const espresso = await orderWhen(shop.url, tooMany, finished)
  assert.equal(espresso.run.status, 'failed', JSON.stringify(espresso))
  assert.match(espresso.failureReason, /Not enough stock of espresso for 11/)
  assert.deepEqual(espresso.payments, [])
  assert.deepEqual(espresso.gatewayCalls, [])
  assert.equal(espresso.reservation, null)
})

void test('bad input gets a structured 4xx, never a 500', async (t) => {
  const shop = await startShop(t, { SQLITE_FILE: await tempDatabase(t) })
  const orders = `${shop.url}/orders`

  const invalid = await post(orders, { sku: 'nope', quantity: 0, card: '1234' })
  assert.equal(invalid.status, 422)
  assert.deepEqual(
    invalid.body.errors.map((e: { field: string; rule: string }) => `${e.field}:${e.rule}`),
    ['sku:database.exists', 'quantity:min', 'card:regex'],
  )
  const notACard = await post(orders, { sku: 'mug', quantity: 1, card: '4242424242424241' })
  assert.equal(notACard.status, 422)
  assert.equal(notACard.body.errors[0].rule, 'creditCard')
  // Refused as sent, not trimmed or reformatted into something valid.
  for (const [field, value] of [
    ['sku', ' mug'],
    ['card', '4242 4242 4242 4242'],
  ] as const) {
    const reply = await post(orders, { sku: 'mug', quantity: 1, card: VISA, [field]: value })
    assert.equal(reply.status, 422, `${field}=${JSON.stringify(value)}`)
    assert.equal(reply.body.errors[0].field, field)
  }
  // A number in a string is refused, not converted.
  const stringly = await post(orders, { sku: 'mug', quantity: '2', card: '4242424242424242' })
  assert.equal(stringly.status, 422)
  assert.equal(stringly.body.errors[0].field, 'quantity')
  for (const body of ['{"sku":', '[]', '"mug"', 'null']) {
    const reply = await post(orders, body, true)
    assert.equal(reply.status, 422, `${body} → ${JSON.stringify(reply)}`)
    assert.ok(Array.isArray(reply.body.errors), JSON.stringify(reply.body))
  }
  const missing = await post(orders, {})
  assert.equal(missing.status, 422)
  assert.equal(missing.body.errors.length, 3)

  const unknown = await get(`${shop.url}/orders/${'x'.repeat(5_000)}`)
  assert.equal(unknown.status, 404)
  assert.equal(unknown.body.errors[0].code, 'E_ORDER_NOT_FOUND')
  const unknownTimeline = await get(`${shop.url}/orders/nope/timeline`)
  assert.equal(unknownTimeline.status, 404)

  const small = await placeOrder(shop.url, 'mug', 1)
  const needless = await post(`${shop.url}/orders/${small}/approve`, {})
  assert.equal(needless.status, 409)
  assert.equal(needless.body.errors[0].code, 'E_NO_APPROVAL_NEEDED')
  const badDecider = await post(`${shop.url}/orders/${small}/approve`, { by: 42 })
  assert.equal(badDecider.status, 422)
  const approveUnknown = await post(`${shop.url}/orders/nope/approve`, {})
  assert.equal(approveUnknown.status, 404)
})

void test('a completed checkout run is swept by the retention policy; its order stays', async (t) => {
  const shop = await startShop(t, {
    SQLITE_FILE: await tempDatabase(t),
    SHOP_KEEP_RUNS_MS: '1000',
    SHOP_RETENTION_INTERVAL_MS: '1000',
  })
  const orderId = await placeOrder(shop.url, 'mug', 1)
  const order = await orderWhen(shop.url, orderId, finished)
  assert.equal(order.run.status, 'completed', JSON.stringify(order))
  // The background sweep deletes the run once it is a second old (swept every second).
  const swept = await orderWhen(shop.url, orderId, (o) => o.run === null, 30_000)
  assert.equal(swept.status, 'completed', 'the order itself is the shop’s, and stays')
  assert.match(swept.shipment.trackingNumber, /^TRK-/)
  const timeline = await get(`${shop.url}/orders/${orderId}/timeline`)
  assert.equal(timeline.status, 200)
  assert.deepEqual(timeline.body.steps, [], 'its recorded steps went with it')
  assert.equal(timeline.body.runStatus, null)
})
