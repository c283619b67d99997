/**
 * The shop on Postgres (DB_CONNECTION=pg): the app's tables and Cairn's in one database, a
 * fresh one per test. An order completes; and one survives kill -9 while it waits for approval.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { serviceAvailable } from '../../../tests/helpers/services.ts'
import {
  awaitingApproval,
  finished,
  orderWhen,
  placeOrder,
  post,
  stockOf,
} from './helpers/shop_client.ts'
import { freshPostgresDatabase } from './helpers/postgres_database.ts'
import { startShop } from './helpers/shop_server.ts'

const skip = !(await serviceAvailable('postgres'))

void test('on Postgres: an order completes, charged once', { skip }, async (t) => {
  const shop = await startShop(t, await freshPostgresDatabase(t))
  const stockBefore = await stockOf(shop.url, 'poster')
  const orderId = await placeOrder(shop.url, 'poster', 2)
  const order = await orderWhen(shop.url, orderId, finished)
  assert.equal(order.run.status, 'completed', JSON.stringify(order))
  assert.equal(order.status, 'completed')
  assert.equal(order.payments.length, 1)
  assert.equal(order.payments[0].amountCents, 2 * 2_500)
  assert.notEqual(order.shipment, null)
  assert.equal(await stockOf(shop.url, 'poster'), stockBefore - 2)
})

void test(
  'on Postgres: kill -9 while waiting for approval, restarted, approved, charged once',
  { skip },
  async (t) => {
    const env = await freshPostgresDatabase(t)
    const first = await startShop(t, env)
    const orderId = await placeOrder(first.url, 'espresso', 1)
    await orderWhen(first.url, orderId, awaitingApproval)
    await first.crash()

    const second = await startShop(t, env)
    assert.equal((await post(`${second.url}/orders/${orderId}/approve`, {})).status, 202)
    const order = await orderWhen(second.url, orderId, finished)
    assert.equal(order.run.status, 'completed', JSON.stringify(order))
    assert.equal(order.payments.length, 1)
    assert.equal(order.gatewayCalls.length, 1)
  },
)
