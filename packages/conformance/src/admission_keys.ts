/**
 * admissionKeys and listRuns' `admissionKey` filter: what operators see of singleton keys.
 * A key is listed while it has open runs (holding a slot or queued), with its stored limit and
 * its runs counted as they are stored; keys come in (scope, key) code point order, a page at a
 * time; a key's open runs are listed by listRuns({ admissionKey }).
 */
import assert from 'node:assert/strict'
import type {
  Admission,
  AdmissionKeyPage,
  AdmissionKeyStats,
  AdmissionKeysQuery,
  Fence,
  StateStore,
  StoreOp,
} from '@cairn/core/contracts'
import { BILLING_V1, LEASE_MS, NON_DETERMINISM, OWNER_A, T0, newRun } from './fixtures.ts'
import { expectRejection, same, type Define } from './harness.ts'
import { applyOne, claim, expectApplied, park, suspend } from './store_calls.ts'

const SCOPE = 'orders'

function admission(key: string, overrides: Partial<Admission> = {}): Admission {
  return { scope: SCOPE, key, limit: 1, onFull: 'queue', maxQueueDepth: null, ...overrides }
}

/** Creates run `id` at `at` under `a` (claimed: leased to OWNER_A when admitted). */
async function admit(store: StateStore, id: string, a: Admission, at: number, claimed = false) {
  const op: StoreOp = {
    type: 'createRun',
    run: newRun(id, { createdAt: at, ...(a.scope === 'billing' ? { key: BILLING_V1 } : {}) }),
    admission: a,
    ...(claimed ? { claim: { owner: OWNER_A, leaseMs: LEASE_MS } } : {}),
  }
  const result = await applyOne(store, op, at)
  expectApplied(result, `create ${id} under ${a.scope}/${a.key}`)
  return result
}

/** Claims every claimable run and returns the fence of `id`. */
async function claimOne(store: StateStore, id: string, now: number): Promise<Fence> {
  const { claimed } = await claim(store, { now, limit: 100 })
  const run = claimed.find((r) => r.id === id)
  assert.ok(run !== undefined, `${id} must be claimable at ${now}`)
  return { runId: id, epoch: run.leaseEpoch }
}

async function end(
  store: StateStore,
  fence: Fence,
  key: string,
  now: number,
  status: 'completed' | 'failed' = 'completed',
): Promise<void> {
  const op: StoreOp = {
    type: 'finishRun',
    fence,
    status,
    output: status === 'completed' ? '"ok"' : null,
    error: status === 'failed' ? '{"message":"no"}' : null,
    admission: { scope: SCOPE, key },
  }
  expectApplied(await applyOne(store, op, now), `finish ${fence.runId}`)
}

/** admissionKeys, its answer's shape checked. */
async function keysPage(store: StateStore, query: AdmissionKeysQuery): Promise<AdmissionKeyPage> {
  const page = await store.admissionKeys(query)
  assert.ok(Array.isArray(page.keys), 'admissionKeys: keys is an array')
  assert.ok(
    page.nextCursor === null || (typeof page.nextCursor === 'string' && page.nextCursor !== ''),
    `admissionKeys: nextCursor is null or a non-empty string, got ${String(page.nextCursor)}`,
  )
  for (const k of page.keys)
    same(
      Object.keys(k).sort(),
      ['admitted', 'key', 'limit', 'oldestQueuedSince', 'queued', 'scope'],
      'admissionKeys: the fields of a key',
    )
  return page
}

/** Every page of the query, followed by cursor. */
async function allKeys(store: StateStore, query: AdmissionKeysQuery = {}) {
  const keys: AdmissionKeyStats[] = []
  let cursor: string | undefined
  for (let pages = 0; pages < 100; pages++) {
    const page = await keysPage(store, { ...query, ...(cursor === undefined ? {} : { cursor }) })
    keys.push(...page.keys)
    if (page.nextCursor === null) return keys
    cursor = page.nextCursor
  }
  assert.fail('admissionKeys: more than 100 pages')
}

function stats(
  key: string,
  counts: { limit?: number; admitted: number; queued: number; oldest?: number | null },
  scope = SCOPE,
): AdmissionKeyStats {
  return {
    scope,
    key,
    limit: counts.limit ?? 1,
    admitted: counts.admitted,
    queued: counts.queued,
    oldestQueuedSince: counts.oldest ?? null,
  }
}

async function ids(store: StateStore, query: Parameters<StateStore['listRuns']>[0]) {
  return (await store.listRuns(query)).runs.map((r) => r.id)
}

export function admissionKeyTests(define: Define): void {
  define('counts follow admissions, queues, promotions and ends', async (store) => {
    same(await keysPage(store, {}), { keys: [], nextCursor: null }, 'no key yet')
    const a = admission('k', { limit: 2 })
    await admit(store, 'r1', a, T0, true)
    await admit(store, 'r2', a, T0 + 1, true)
    await admit(store, 'r3', a, T0 + 2)
    await admit(store, 'r4', a, T0 + 3)
    same(
      (await keysPage(store, {})).keys,
      [stats('k', { limit: 2, admitted: 2, queued: 2, oldest: T0 + 2 })],
      'two admitted, two queued; the oldest queued is the first in the queue',
    )
    // A waiting run and a parked one hold their slots, and count as admitted.
    await suspend(store, { runId: 'r1', epoch: 1 }, T0 + 6, T0 + 4)
    await park(store, { runId: 'r2', epoch: 1 }, NON_DETERMINISM, T0 + 5)
    same(
      (await keysPage(store, {})).keys,
      [stats('k', { limit: 2, admitted: 2, queued: 2, oldest: T0 + 2 })],
      'waiting and parked hold their slots',
    )
    // An end naming the key promotes r3: one admitted more, one queued less.
    const f1 = await claimOne(store, 'r1', T0 + 6) // its timer is due
    await end(store, f1, 'k', T0 + 7)
    same(
      (await keysPage(store, {})).keys,
      [stats('k', { limit: 2, admitted: 2, queued: 1, oldest: T0 + 3 })],
      'r1 ended, r3 promoted',
    )
    // Cancelling the last waiter empties the queue.
    expectApplied(
      await applyOne(
        store,
        { type: 'cancelRun', runId: 'r4', error: '{}', admission: { scope: SCOPE, key: 'k' } },
        T0 + 8,
      ),
      'cancel r4',
    )
    same(
      (await keysPage(store, {})).keys,
      [stats('k', { limit: 2, admitted: 2, queued: 0, oldest: null })],
      'nobody queued',
    )
    // The newest writer's limit is the key's.
    await admit(store, 'r5', admission('k', { limit: 5 }), T0 + 9)
    same(
      (await keysPage(store, {})).keys,
      [stats('k', { limit: 5, admitted: 3, queued: 0 })],
      'limit raised to 5 by the newest create',
    )
    for (const id of ['r2', 'r3', 'r5'])
      expectApplied(
        await applyOne(
          store,
          { type: 'cancelRun', runId: id, error: '{}', admission: { scope: SCOPE, key: 'k' } },
          T0 + 10,
        ),
        `cancel ${id}`,
      )
    same(await keysPage(store, {}), { keys: [], nextCursor: null }, 'every run ended: not listed')
  })

  define('keys without open runs are not listed; others are, each on its own', async (store) => {
    await admit(store, 'gone', admission('gone'), T0, true)
    await end(store, { runId: 'gone', epoch: 1 }, 'gone', T0 + 1)
    // A refused start leaves no run behind (the key may have been written).
    await admit(store, 'held', admission('full', { onFull: 'reject' }), T0 + 2)
    const refused = await applyOne(
      store,
      {
        type: 'createRun',
        run: newRun('refused', { createdAt: T0 + 3 }),
        admission: admission('full', { onFull: 'reject' }),
      },
      T0 + 3,
    )
    assert.equal(refused.status, 'full')
    // A run that failed and another that ended without naming its key: both leave their key.
    await admit(store, 'failed', admission('failing'), T0 + 4, true)
    await end(store, { runId: 'failed', epoch: 1 }, 'failing', T0 + 5, 'failed')
    await admit(store, 'quiet', admission('quiet'), T0 + 6, true)
    const op: StoreOp = {
      type: 'finishRun',
      fence: { runId: 'quiet', epoch: 1 },
      status: 'completed',
      output: '"ok"',
      error: null,
    }
    expectApplied(await applyOne(store, op, T0 + 7), 'finish quiet without its key')
    // A run without a key is no key's.
    expectApplied(
      await applyOne(store, { type: 'createRun', run: newRun('free', { createdAt: T0 }) }, T0),
      'create without admission',
    )
    same(
      await allKeys(store),
      [stats('full', { admitted: 1, queued: 0 })],
      'only the key with an open run',
    )
  })

  define('keys come in (scope, key) code point order; scope filters exactly', async (store) => {
    // Code point order, not UTF-16's: U+FFFD sorts before U+1F600 (a surrogate pair in UTF-16).
    const keys = ['\u{1F600}', 'b', 'a b', '\uFFFD', 'é', 'B', 'a']
    for (const [i, key] of keys.entries()) await admit(store, `o${i}`, admission(key), T0 + i)
    await admit(store, 'b1', admission('z', { scope: 'billing' }), T0 + 10)
    await admit(store, 'b2', admission('a', { scope: 'billing' }), T0 + 11)
    await admit(store, 'x1', admission('a', { scope: 'ordersX' }), T0 + 12)
    const expected = [
      ['billing', 'a'],
      ['billing', 'z'],
      ...['B', 'a', 'a b', 'b', 'é', '\uFFFD', '\u{1F600}'].map((key) => [SCOPE, key]),
      ['ordersX', 'a'],
    ]
    same(
      (await keysPage(store, {})).keys.map((k) => [k.scope, k.key]),
      expected,
      'every key, in order',
    )
    same(
      (await keysPage(store, { scope: 'billing' })).keys.map((k) => k.key),
      ['a', 'z'],
      'scope billing',
    )
    same(
      (await keysPage(store, { scope: SCOPE })).keys.map((k) => k.key),
      ['B', 'a', 'a b', 'b', 'é', '\uFFFD', '\u{1F600}'],
      'scope orders: exact, not a prefix',
    )
    same(await keysPage(store, { scope: 'order' }), { keys: [], nextCursor: null }, 'no such scope')
  })

  define('pages: limit and cursor walk every key once, in order', async (store) => {
    for (const [i, key] of ['k1', 'k2', 'k3', 'k4', 'k5'].entries())
      await admit(store, `o${i}`, admission(key), T0 + i)
    await admit(store, 'b1', admission('k0', { scope: 'billing' }), T0 + 10)
    await admit(store, 'b2', admission('k9', { scope: 'billing' }), T0 + 11)
    const first = await keysPage(store, { limit: 3 })
    same(
      first.keys.map((k) => `${k.scope}/${k.key}`),
      ['billing/k0', 'billing/k9', 'orders/k1'],
      'first page',
    )
    assert.ok(first.nextCursor !== null, 'a next page')
    const second = await keysPage(store, { limit: 3, cursor: first.nextCursor })
    same(
      second.keys.map((k) => `${k.scope}/${k.key}`),
      ['orders/k2', 'orders/k3', 'orders/k4'],
      'second page',
    )
    // A key added before the cursor is not seen; one after it is.
    await admit(store, 'o-early', admission('k0'), T0 + 20)
    await admit(store, 'o-late', admission('k6'), T0 + 21)
    const third = await keysPage(store, { limit: 3, cursor: second.nextCursor ?? undefined })
    same(
      third,
      {
        keys: [stats('k5', { admitted: 1, queued: 0 }), stats('k6', { admitted: 1, queued: 0 })],
        nextCursor: null,
      },
      'last page',
    )
    // Exactly `limit` keys left: the page says so with a null cursor, not an empty next page.
    const exact = await keysPage(store, { scope: 'billing', limit: 2 })
    same(exact.nextCursor, null, 'two keys, limit 2: no next page')
    same(
      (await allKeys(store, { scope: SCOPE, limit: 2 })).map((k) => k.key),
      ['k0', 'k1', 'k2', 'k3', 'k4', 'k5', 'k6'],
      'scope orders, two at a time',
    )
    same((await allKeys(store, { limit: 1 })).length, 9, 'one at a time')
    // A cursor keeps its place under a scope filter: past a scope, or before it.
    const inBilling = await keysPage(store, { limit: 1 })
    same(
      (await keysPage(store, { scope: SCOPE, cursor: inBilling.nextCursor ?? undefined })).keys
        .length,
      7,
      'a cursor before the scope: the whole scope',
    )
    const inOrders = await keysPage(store, { scope: SCOPE, limit: 1 })
    same(
      await keysPage(store, { scope: 'billing', cursor: inOrders.nextCursor ?? undefined }),
      { keys: [], nextCursor: null },
      'a cursor past the scope: nothing',
    )
  })

  define('the oldest queued is the first in the queue, a requeued run behind', async (store) => {
    await admit(store, 'r1', admission('k'), T0, true)
    await end(store, { runId: 'r1', epoch: 1 }, 'k', T0 + 1, 'failed')
    await admit(store, 'r2', admission('k'), T0 + 2, true)
    await admit(store, 'r3', admission('k'), T0 + 3)
    const requeued = await store.requeueRun({ runId: 'r1', epoch: 1, resetSeqs: [], now: T0 + 4 })
    assert.equal(requeued.status, 'applied')
    same(
      (await keysPage(store, {})).keys,
      [stats('k', { admitted: 1, queued: 2, oldest: T0 + 3 })],
      'r3 is first in the queue; r1 (created earlier) waits behind it',
    )
  })

  define('listRuns({ admissionKey }): the open runs of one key', async (store) => {
    const key = { scope: SCOPE, key: 'k' }
    await admit(store, 'r0', admission('k'), T0, true)
    await end(store, { runId: 'r0', epoch: 1 }, 'k', T0 + 1)
    await admit(store, 'r1', admission('k'), T0 + 2)
    await admit(store, 'r2', admission('k'), T0 + 3)
    await admit(store, 'r3', admission('k'), T0 + 4)
    await admit(store, 'other', admission('k2'), T0 + 5)
    await admit(store, 'elsewhere', admission('k', { scope: 'billing' }), T0 + 6)
    expectApplied(
      await applyOne(
        store,
        { type: 'createRun', run: newRun('free', { createdAt: T0 + 7 }) },
        T0 + 7,
      ),
      'create without admission',
    )
    same(await ids(store, { admissionKey: key }), ['r3', 'r2', 'r1'], 'open runs, newest first')
    same(
      await ids(store, { admissionKey: key, order: 'oldest' }),
      ['r1', 'r2', 'r3'],
      'oldest first',
    )
    same(await ids(store, { admissionKey: key, status: 'queued' }), ['r3', 'r2'], 'queued ones')
    same(
      await ids(store, { admissionKey: key, status: ['pending', 'completed'] }),
      ['r1'],
      'an ended run of the key never matches',
    )
    same(await ids(store, { admissionKey: key, workflow: 'billing' }), [], 'with another workflow')
    same(
      await ids(store, { admissionKey: { scope: 'billing', key: 'k' } }),
      ['elsewhere'],
      'the same key in another scope',
    )
    same(await ids(store, { admissionKey: { scope: SCOPE, key: 'none' } }), [], 'unknown key')
    const first = await store.listRuns({ admissionKey: key, limit: 2 })
    same(
      first.runs.map((r) => r.id),
      ['r3', 'r2'],
      'first page',
    )
    same(
      await ids(store, { admissionKey: key, limit: 2, cursor: first.nextCursor ?? undefined }),
      ['r1'],
      'next page',
    )
    const facets = await store.facetRuns({ admissionKey: key })
    same(facets.byStatus, { pending: 1, queued: 2 }, 'facetRuns byStatus')
    same(facets.byWorkflow, [{ workflow: 'orders', count: 3 }], 'facetRuns byWorkflow')
  })

  define('malformed queries are refused', async (store) => {
    const bad: [string, unknown][] = [
      ['limit 0', { limit: 0 }],
      ['limit 1001', { limit: 1001 }],
      ['limit 1.5', { limit: 1.5 }],
      ['limit as text', { limit: '10' }],
      ['empty scope', { scope: '' }],
      ['a number scope', { scope: 7 }],
      ['a scope with NUL', { scope: 'a\u0000b' }],
      ['a scope of 257 characters', { scope: 'x'.repeat(257) }],
      ['an empty cursor', { cursor: '' }],
      ['a number cursor', { cursor: 5 }],
      ['an unknown field', { workflow: SCOPE }],
      ['not an object', 'orders'],
      ['null', null],
    ]
    for (const [what, query] of bad)
      await expectRejection(
        () => store.admissionKeys(query as AdmissionKeysQuery),
        'E_INVALID_ARGUMENT',
        `admissionKeys: ${what}`,
      )
    await admit(store, 'r1', admission('k1'), T0)
    await admit(store, 'r2', admission('k2'), T0)
    const { nextCursor } = await keysPage(store, { limit: 1 })
    assert.ok(nextCursor !== null)
    const middle = Math.floor(nextCursor.length / 2)
    const flipped = nextCursor[middle] === 'A' ? 'B' : 'A'
    const altered = `${nextCursor.slice(0, middle)}${flipped}${nextCursor.slice(middle + 1)}`
    for (const [what, cursor] of [
      ['garbage', 'not-a-cursor!'],
      ['altered', altered],
      ['a listRuns cursor', (await store.listRuns({ limit: 1 })).nextCursor ?? 'x'],
    ] as const)
      await expectRejection(
        () => store.admissionKeys({ cursor }),
        'E_INVALID_CURSOR',
        `admissionKeys: a ${what} cursor`,
      )
    const badKeys: [string, unknown][] = [
      ['no key', { scope: SCOPE }],
      ['an empty key', { scope: SCOPE, key: '' }],
      ['a key of 257 characters', { scope: SCOPE, key: 'k'.repeat(257) }],
      ['a text', 'k'],
      ['an extra field', { scope: SCOPE, key: 'k', limit: 1 }],
    ]
    for (const [what, admissionKey] of badKeys) {
      await expectRejection(
        () => store.listRuns({ admissionKey: admissionKey as never }),
        'E_INVALID_ARGUMENT',
        `listRuns admissionKey: ${what}`,
      )
      await expectRejection(
        () => store.facetRuns({ admissionKey: admissionKey as never }),
        'E_INVALID_ARGUMENT',
        `facetRuns admissionKey: ${what}`,
      )
    }
  })
}
