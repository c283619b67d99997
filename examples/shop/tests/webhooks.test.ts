/**
 * What config/durable.ts makes reachable, over HTTP on a real shop server: the carrier's
 * delivery callback through the webhook route (`webhookUrl`), the run's published state
 * through the dashboard (GET /durable/api/runs/:id/events/:key, behind its token), and
 * encryption at rest through the codec's transform — the SQLite file holds ciphertext while
 * every route answers with the values.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { DatabaseSync } from 'node:sqlite'
import { test } from 'node:test'
import { finished, orderWhen, placeOrder, type Reply } from './helpers/shop_client.ts'
import { startShop, tempDatabase, withLimit } from './helpers/shop_server.ts'

const TOKEN = 'shop-dashboard-token-for-tests'
const AUTH = { authorization: `Bearer ${TOKEN}` }
const PUBLIC_WEBHOOK_URL = 'https://shop.example.com/durable/webhooks'
/** Unusual enough that finding it in the database file means it was stored in clear. */
const SIGNER = 'Ada-Lovelace-7f3a9c'

async function call(url: string, init: RequestInit = {}): Promise<Reply> {
  const response = await fetch(url, init)
  return { status: response.status, body: await response.json() }
}

function callback(url: string, body: string, contentType = 'application/json') {
  return call(url, { method: 'POST', headers: { 'content-type': contentType }, body })
}

/** Polls a published key through the dashboard until it has `value`. */
async function publishedWhen(base: string, runId: string, key: string, value: unknown) {
  const url = `${base}/durable/api/runs/${encodeURIComponent(runId)}/events/${key}`
  let last: Reply | undefined
  const poll = async () => {
    for (;;) {
      last = await call(url, { headers: AUTH })
      if (last.status === 200 && JSON.stringify(last.body.value) === JSON.stringify(value))
        return last
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
  return withLimit(
    poll(),
    60_000,
    () => `${key} never became ${JSON.stringify(value)}: ${JSON.stringify(last)}`,
  )
}

/** Every text cell of Cairn's tables, read from the SQLite file itself. */
function storedText(file: string): string[] {
  const db = new DatabaseSync(file, { readOnly: true })
  try {
    const tables = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'cairn_%'")
      .all() as Array<{ name: string }>
    return tables.flatMap(({ name }) =>
      (db.prepare(`SELECT * FROM "${name}"`).all() as Array<Record<string, unknown>>).flatMap(
        (row) => Object.values(row).filter((v): v is string => typeof v === 'string'),
      ),
    )
  } finally {
    db.close()
  }
}

void test('a carrier callback completes the delivery run; state is published and encrypted at rest', async (t) => {
  const database = await tempDatabase(t)
  const shop = await startShop(t, {
    SQLITE_FILE: database,
    NODE_ENV: 'production',
    DURABLE_DASHBOARD_TOKEN: TOKEN,
    DURABLE_PAYLOAD_KEY: randomBytes(32).toString('base64'),
    DURABLE_WEBHOOK_URL: PUBLIC_WEBHOOK_URL,
  })
  const orderId = await placeOrder(shop.url, 'mug', 1)
  assert.equal((await orderWhen(shop.url, orderId, finished)).run.status, 'completed')
  const started = await call(`${shop.url}/orders/${orderId}/delivery`, { method: 'POST' })
  assert.equal(started.status, 202, JSON.stringify(started.body))
  const runId: string = started.body.runId
  const runUrl = `${shop.url}/durable/api/runs/${encodeURIComponent(runId)}`

  await publishedWhen(shop.url, runId, 'stage', 'in transit')
  // What the carrier was handed: an address under webhookUrl, recorded as the step's result.
  const steps = await call(`${runUrl}/steps`, { headers: AUTH })
  const asked = steps.body.steps.find(
    (s: { name: string }) => s.name === 'request-delivery-callback',
  )
  const callbackUrl: string = asked.output.callbackUrl
  assert.ok(callbackUrl.startsWith(`${PUBLIC_WEBHOOK_URL}/`), callbackUrl)
  const hook = `${shop.url}${new URL(callbackUrl).pathname}`
  const unknownHook = hook.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'))
  const proof = { deliveredAt: '2026-03-01T10:00:00.000Z', signedBy: SIGNER }

  await t.test('the published-state route is behind the dashboard token', async () => {
    assert.equal((await call(`${runUrl}/events/stage`)).status, 401)
    const wrong = { authorization: 'Bearer not-the-dashboard-token' }
    assert.equal((await call(`${runUrl}/events/stage`, { headers: wrong })).status, 401)
    const unset = await call(`${runUrl}/events/proof-of-delivery`, { headers: AUTH })
    assert.equal(unset.status, 404)
    const unknownRun = await call(`${shop.url}/durable/api/runs/no-such-run/events/stage`, {
      headers: AUTH,
    })
    assert.equal(unknownRun.status, 404)
  })

  await t.test('a body past the route limit is 413 and the run still waits', async () => {
    // Over the route's 256 KiB, and over the app's own 64 KiB JSON bodyparser limit too.
    const big = JSON.stringify({ ...proof, photo: 'x'.repeat(300 * 1024) })
    const refused = await callback(hook, big)
    assert.equal(refused.status, 413)
    assert.equal(refused.body.error.code, 'E_PAYLOAD_TOO_LARGE')
    const run = await call(runUrl, { headers: AUTH })
    assert.equal(run.body.run.status, 'waiting')
  })

  await t.test('an unknown token is 404 and changes nothing', async () => {
    const unknown = await callback(unknownHook, JSON.stringify(proof))
    assert.equal(unknown.status, 404)
    assert.equal(unknown.body.error.code, 'E_WEBHOOK_NOT_FOUND')
  })

  await t.test(
    'the callback is accepted (202), past the bodyparser limit, and completes the run',
    async () => {
      // 100 KiB: the route's own limit applies, not the app's bodyparser (64 KiB).
      const accepted = await callback(
        hook,
        JSON.stringify({ ...proof, note: 'n'.repeat(100 * 1024) }),
      )
      assert.deepEqual(accepted, { status: 202, body: { status: 'accepted' } })
      await publishedWhen(shop.url, runId, 'stage', 'delivered')
      const run = await call(runUrl, { headers: AUTH })
      assert.equal(run.body.run.status, 'completed')
      assert.equal(run.body.run.output.signedBy, SIGNER)
      const published = await call(`${runUrl}/events/proof-of-delivery`, { headers: AUTH })
      assert.equal(published.body.value.signedBy, SIGNER)
    },
  )

  await t.test('the same token again gets the very answer an unknown one gets', async () => {
    const again = await callback(hook, JSON.stringify(proof))
    const unknown = await callback(unknownHook, JSON.stringify(proof))
    assert.deepEqual(again, unknown)
    assert.equal(again.status, 404)
  })

  await t.test('the store holds ciphertext; the routes returned the values', () => {
    const cells = storedText(database)
    const sealed = cells.filter((cell) => cell.startsWith('v1.'))
    assert.ok(sealed.length >= 10, `encrypted payloads: ${sealed.length}`)
    const clear = cells.filter((cell) =>
      /Ada-Lovelace|in transit|delivered|tok_visa|TRK-/.test(cell),
    )
    assert.deepEqual(clear, [], 'no payload is stored in clear')
  })
})
