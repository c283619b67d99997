/**
 * The operations dashboard the Cairn provider mounts at /durable (config/durable.ts), on a
 * real shop server: the shop's checkout runs are listed and inspected there, an operator
 * action goes through to the run, and outside development it fails closed without a token.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  awaitingApproval,
  finished,
  orderWhen,
  placeOrder,
  post,
  VISA,
} from './helpers/shop_client.ts'
import { startShop, tempDatabase } from './helpers/shop_server.ts'

const TOKEN = 'shop-dashboard-token-for-tests'

async function json(url: string, init: RequestInit = {}) {
  const response = await fetch(url, init)
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON the assertions inspect
  const body: any = await response.json()
  return { status: response.status, headers: response.headers, body }
}

void test('in development the dashboard at /durable lists and shows the checkout runs', async (t) => {
  const shop = await startShop(t, { SQLITE_FILE: await tempDatabase(t) })
  const orderId = await placeOrder(shop.url, 'mug', 1)
  const order = await orderWhen(shop.url, orderId, finished)
  const runId: string = order.run.id

  const list = await json(`${shop.url}/durable/api/runs?workflow=checkout`)
  assert.equal(list.status, 200)
  assert.deepEqual(
    list.body.runs.map((r: { id: string; status: string }) => [r.id, r.status]),
    [[runId, 'completed']],
  )
  const detail = await json(`${shop.url}/durable/api/runs/${encodeURIComponent(runId)}`)
  assert.equal(detail.status, 200)
  assert.equal(detail.body.run.workflow, 'checkout')
  const steps = await json(`${shop.url}/durable/api/runs/${encodeURIComponent(runId)}/steps`)
  assert.deepEqual(
    steps.body.steps.map((s: { name: string }) => s.name),
    ['record-order', 'reserve-stock', 'charge-card', 'ship', 'complete-order'],
  )
  // The charge took a slot of the gateway's queue and gave it back.
  const queues = await json(`${shop.url}/durable/api/queues`)
  // Its one grant counts against the rate for a second after it (and may have aged already).
  const [gateway] = queues.body.queues as Array<{ recentGrants: number }>
  assert.ok(gateway !== undefined && gateway.recentGrants <= 1, 'one charge, one grant at most')
  assert.deepEqual(queues.body.queues, [
    {
      queue: 'payment-gateway',
      concurrency: 4,
      granted: 0,
      leased: 0,
      waiting: 0,
      oldestWaitingSince: null,
      rateLimit: { limit: 20, periodMs: 1_000 },
      recentGrants: gateway.recentGrants,
      throttled: 0,
    },
  ])
  // The card number went to the gateway and nowhere else: the run holds a token and the last
  // four digits, in its input and in every step of its history.
  const seen = JSON.stringify([detail.body, steps.body])
  assert.doesNotMatch(seen, /4242424242424242|424242424242/)
  assert.match(detail.body.run.input.cardToken, /^tok_visa_[0-9a-f]{16}$/)
  assert.equal(detail.body.run.input.cardLast4, '4242')

  // The console page itself, with the dashboard's CSP (the app's own middleware did not
  // replace it).
  const page = await fetch(`${shop.url}/durable/`)
  assert.equal(page.status, 200)
  assert.match(page.headers.get('content-type') ?? '', /text\/html/)
  assert.match(page.headers.get('content-security-policy') ?? '', /script-src 'self'/)
  assert.match(await page.text(), /<script type="module"/)

  // The console's own way to act, through the app's router: a session cookie and its CSRF
  // token from GET api/session, the page's origin. The action reaches the engine (a completed
  // run is not requeueable), so the origin the dashboard sees behind Adonis is the page's.
  const session = await fetch(`${shop.url}/durable/api/session`)
  const cookie = (session.headers.getSetCookie()[0] ?? '').split(';')[0]!
  const { csrfToken } = (await session.json()) as { csrfToken: string }
  const sameOrigin = await json(`${shop.url}/durable/api/runs/${encodeURIComponent(runId)}/retry`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      origin: shop.url,
      cookie,
      'x-cairn-csrf': csrfToken,
    },
    body: '{}',
  })
  assert.equal(sameOrigin.status, 409, JSON.stringify(sameOrigin.body))
  assert.equal(sameOrigin.body.error.code, 'E_RUN_NOT_REQUEUEABLE')

  // A state change from another site is refused (CSRF), and the run is untouched.
  const forged = await json(`${shop.url}/durable/api/runs/${encodeURIComponent(runId)}/retry`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: 'https://evil.example' },
    body: '{}',
  })
  assert.equal(forged.status, 403)
  assert.equal(forged.body.error.code, 'E_CSRF')
})

void test('in production the dashboard needs the token; with it, cancel compensates an order', async (t) => {
  const shop = await startShop(t, {
    SQLITE_FILE: await tempDatabase(t),
    NODE_ENV: 'production',
    DURABLE_DASHBOARD_TOKEN: TOKEN,
  })
  const orderId = await placeOrder(shop.url, 'espresso', 1)
  const waiting = await orderWhen(shop.url, orderId, awaitingApproval)
  const runId: string = waiting.run.id

  const anonymous = await json(`${shop.url}/durable/api/runs`)
  assert.equal(anonymous.status, 401)
  assert.equal(anonymous.body.error.code, 'E_UNAUTHORIZED')
  const wrong = await json(`${shop.url}/durable/api/runs`, {
    headers: { authorization: 'Bearer not-the-dashboard-token' },
  })
  assert.equal(wrong.status, 401)

  const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }
  const detail = await json(`${shop.url}/durable/api/runs/${encodeURIComponent(runId)}`, {
    headers: auth,
  })
  assert.equal(detail.status, 200)
  assert.equal(detail.body.run.status, 'waiting')
  assert.ok(
    detail.body.run.waits.some((w: { kind: string }) => w.kind === 'signal'),
    JSON.stringify(detail.body.run.waits),
  )

  const cancel = await json(`${shop.url}/durable/api/runs/${encodeURIComponent(runId)}/cancel`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ reason: 'operator cancelled from the dashboard', compensate: true }),
  })
  assert.equal(cancel.status, 200, JSON.stringify(cancel.body))
  const order = await orderWhen(shop.url, orderId, finished)
  assert.equal(order.run.status, 'cancelled', JSON.stringify(order))
  // The compensation refunded the charge made before the approval wait.
  const kinds = order.payments.map((p: { kind: string }) => p.kind)
  assert.deepEqual(kinds, ['charge', 'refund'])
})

void test('an express order runs its checkout at priority 100; a standard one at 0', async (t) => {
  const shop = await startShop(t, { SQLITE_FILE: await tempDatabase(t) })
  const express = await post(`${shop.url}/orders`, {
    sku: 'mug',
    quantity: 1,
    card: VISA,
    express: true,
  })
  assert.equal(express.status, 202, JSON.stringify(express.body))
  const standard = await post(`${shop.url}/orders`, { sku: 'mug', quantity: 1, card: VISA })
  const priorityOf = async (runId: string) =>
    (await json(`${shop.url}/durable/api/runs/${encodeURIComponent(runId)}`)).body.run.priority
  assert.equal(await priorityOf(express.body.runId), 100)
  assert.equal(await priorityOf(standard.body.runId), 0)
  const refused = await post(`${shop.url}/orders`, {
    sku: 'mug',
    quantity: 1,
    card: VISA,
    express: 'yes',
  })
  assert.equal(refused.status, 422, 'express is a boolean, taken as sent')
})

void test('the nightly cleanup closes an order whose checkout was cancelled, triggered from the dashboard', async (t) => {
  const shop = await startShop(t, {
    SQLITE_FILE: await tempDatabase(t),
    NODE_ENV: 'production',
    DURABLE_DASHBOARD_TOKEN: TOKEN,
    SHOP_ABANDON_AFTER_MS: '0',
  })
  const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }
  const schedule = await json(`${shop.url}/durable/api/schedules/abandoned-orders`, {
    headers: auth,
  })
  assert.equal(schedule.status, 200, JSON.stringify(schedule.body))
  assert.equal(schedule.body.schedule.cron, '0 3 * * *')
  assert.equal(schedule.body.schedule.timezone, 'Europe/Paris')
  assert.equal(schedule.body.schedule.upcoming.length, 5, 'the next nights, listed')

  const waiting = await placeOrder(shop.url, 'espresso', 1)
  const order = await orderWhen(shop.url, waiting, awaitingApproval)
  const cancelled = await json(
    `${shop.url}/durable/api/runs/${encodeURIComponent(order.run.id)}/cancel`,
    { method: 'POST', headers: auth, body: JSON.stringify({ reason: 'no longer wanted' }) },
  )
  assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body))
  const stuck = await orderWhen(shop.url, waiting, (o) => o.run?.status === 'cancelled')
  assert.equal(stuck.status, 'awaiting_approval', 'a cancelled checkout leaves its order open')

  const trigger = await json(`${shop.url}/durable/api/schedules/abandoned-orders/trigger`, {
    method: 'POST',
    headers: auth,
    body: '{}',
  })
  assert.equal(trigger.status, 200, JSON.stringify(trigger.body))
  const closed = await orderWhen(shop.url, waiting, (o) => o.status === 'failed')
  assert.equal(closed.failureReason, 'abandoned: its checkout ended cancelled')
  const sweepUrl = `${shop.url}/durable/api/runs/${encodeURIComponent(trigger.body.runId)}`
  let sweep = await json(sweepUrl, { headers: auth })
  // The order is closed inside the sweep's step; the run ends a moment later.
  for (let i = 0; i < 100 && sweep.body.run.status !== 'completed'; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50))
    sweep = await json(sweepUrl, { headers: auth })
  }
  assert.equal(sweep.body.run.status, 'completed')
  assert.deepEqual(sweep.body.run.output, { closed: [waiting] })
})
