/**
 * `GET api/singletons`: the singleton keys with open runs (engine.singletonKeys), paged, with
 * the engine clock's `now`; the runs list, facets and bulk actions filtered to one key
 * (`workflow` + `singletonKey`); bad queries are 400s; behind the dashboard's auth.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Engine, MemoryStore, silentLogger } from '@cairn/core'
import { FakeClock } from '@cairn/core/testing'
import { call, fixture } from './helpers.ts'

async function keyedEngine(t: { after(fn: () => unknown): void }) {
  const clock = new FakeClock(1_700_000_000_000)
  const engine = new Engine({ store: new MemoryStore(), logger: silentLogger, clock })
  const body = async () => 'done'
  engine.register('checkout', 1, body, {
    singleton: { key: (order: { cart: string }) => order.cart },
  })
  engine.register('sync', 1, body, {
    singleton: { key: (input: { customer: string }) => input.customer, limit: 3 },
  })
  await engine.open() // not driving: runs stay where admission put them
  t.after(() => engine.close(0))
  const f = await fixture({}, engine)
  t.after(() => f.close())
  return { engine, clock, f }
}

void test('GET api/singletons lists each key with open runs, counted, in order', async (t) => {
  const { engine, clock, f } = await keyedEngine(t)
  const started = clock.now()
  const c1 = []
  for (const n of [1, 2, 3]) {
    c1.push(await engine.start('checkout', { cart: 'c1', n }))
    await clock.advance(1000)
  }
  await engine.start('checkout', { cart: 'c2' })
  await engine.start('sync', { customer: 'c1' })
  await clock.advance(5000)

  const { status, json } = await call(f.dashboard, '/api/singletons')
  assert.equal(status, 200)
  assert.deepEqual(json, {
    keys: [
      {
        workflow: 'checkout',
        key: 'c1',
        limit: 1,
        admitted: 1,
        queued: 2,
        oldestQueuedSince: started + 1000,
      },
      {
        workflow: 'checkout',
        key: 'c2',
        limit: 1,
        admitted: 1,
        queued: 0,
        oldestQueuedSince: null,
      },
      { workflow: 'sync', key: 'c1', limit: 3, admitted: 1, queued: 0, oldestQueuedSince: null },
    ],
    nextCursor: null,
    now: started + 8000,
  })

  const sync = await call(f.dashboard, '/api/singletons?workflow=sync')
  assert.deepEqual(
    sync.json.keys.map((k: { workflow: string; key: string }) => `${k.workflow}/${k.key}`),
    ['sync/c1'],
  )
  const first = await call(f.dashboard, '/api/singletons?limit=2')
  assert.equal(first.json.keys.length, 2)
  assert.equal(typeof first.json.nextCursor, 'string')
  const next = await call(
    f.dashboard,
    `/api/singletons?limit=2&cursor=${encodeURIComponent(first.json.nextCursor)}`,
  )
  assert.deepEqual(next.json.keys, [json.keys[2]])
  assert.equal(next.json.nextCursor, null)

  // The key's runs: the runs list, its facets and a bulk action's dry run.
  const runs = await call(f.dashboard, '/api/runs?workflow=checkout&singletonKey=c1')
  assert.equal(runs.status, 200)
  assert.deepEqual(
    runs.json.runs.map((r: { id: string }) => r.id),
    c1.map((r) => r.runId).reverse(),
  )
  const queued = await call(
    f.dashboard,
    '/api/runs?workflow=checkout&singletonKey=c1&status=queued',
  )
  assert.equal(queued.json.runs.length, 2)
  const facets = await call(f.dashboard, '/api/facets?workflow=checkout&singletonKey=c1')
  assert.deepEqual(facets.json.byStatus, { pending: 1, queued: 2 })
  const dry = await call(f.dashboard, '/api/bulk/cancel', {
    body: { filter: { workflow: 'checkout', singletonKey: 'c1', status: 'queued' }, dryRun: true },
  })
  assert.equal(dry.status, 200)
  assert.equal(dry.json.matched, 2)

  assert.equal((await call(f.dashboard, '/api/singletons', { bearer: false })).status, 401)
})

void test('GET api/singletons refuses bad queries; singletonKey needs its workflow', async (t) => {
  const { engine, f } = await keyedEngine(t)
  await engine.start('checkout', { cart: 'c1' })
  for (const [query, code] of [
    ['limit=x', 'E_INVALID_ARGUMENT'],
    ['color=red', 'E_INVALID_ARGUMENT'],
    ['workflow=a&workflow=b', 'E_INVALID_ARGUMENT'],
    [`workflow=${'w'.repeat(300)}`, 'E_INVALID_ARGUMENT'],
    ['cursor=not-a-cursor', 'E_INVALID_CURSOR'],
  ]) {
    const { status, json } = await call(f.dashboard, `/api/singletons?${query}`)
    assert.equal(status, 400, query)
    assert.equal(json.error.code, code, query)
  }
  const alone = await call(f.dashboard, '/api/runs?singletonKey=c1')
  assert.equal(alone.status, 400)
  assert.match(alone.json.error.message, /singletonKey needs workflow/)
  const tooLong = await call(
    f.dashboard,
    `/api/runs?workflow=checkout&singletonKey=${'k'.repeat(300)}`,
  )
  assert.equal(tooLong.status, 400)
  // An empty workflow is no filter; a limit beyond the page size is clamped.
  const all = await call(f.dashboard, '/api/singletons?workflow=&limit=100000')
  assert.equal(all.status, 200)
  assert.equal(all.json.keys.length, 1)
})
