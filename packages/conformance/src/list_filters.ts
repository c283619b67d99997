/**
 * listRuns filters for dashboards: workflow version, a creation time window (from inclusive,
 * before exclusive) and a literal, case-sensitive id substring. Each combines with the older
 * filters, search attributes and the cursor; malformed values are refused.
 */
import assert from 'node:assert/strict'
import type { ListRunsQuery, RunFacetQuery, StateStore } from '@cairn/core/contracts'
import { BILLING_V1, ORDERS_V1, ORDERS_V2, T0, checkpoint } from './fixtures.ts'
import { expectRejection, same, type Define } from './harness.ts'
import {
  applyOne,
  createPending,
  expectApplied,
  finish,
  ids,
  list,
  listAll,
  startRun,
} from './store_calls.ts'

async function listIds(store: StateStore, query: ListRunsQuery): Promise<string[]> {
  return ids(await listAll(store, query))
}

/** Runs with wildcard-looking and mixed-case ids, one per millisecond. */
const ODD_IDS = ['order-100%', 'order-1000', 'ORDER-a_b', 'order-axb', 'order-!x', 'order-\\x']

/** Filter values every store refuses with E_INVALID_ARGUMENT (also used by facetRuns). */
export const INVALID_FILTERS: ReadonlyArray<[string, RunFacetQuery]> = [
  ['idContains empty', { idContains: '' }],
  ['idContains of 256 chars', { idContains: 'x'.repeat(256) }],
  ['idContains not a string', { idContains: 42 as unknown as string }],
  ['createdFrom a fraction', { createdFrom: T0 + 0.5 }],
  ['createdFrom NaN', { createdFrom: Number.NaN }],
  ['createdBefore beyond 2^53', { createdBefore: 2 ** 53 }],
  ['createdBefore a string', { createdBefore: '2026-01-01' as unknown as number }],
  ['claimableBefore a fraction', { claimableBefore: T0 + 0.5 }],
  ['claimableBefore a string', { claimableBefore: '2026-01-01' as unknown as number }],
  ['version not a string', { version: 1 as unknown as string }],
]

export function listFilterTests(define: Define): void {
  define('filters by version, alone and with workflow', async (store) => {
    await createPending(store, 'orders-1', T0, ORDERS_V1)
    await createPending(store, 'orders-2', T0 + 1, ORDERS_V2)
    await createPending(store, 'billing-1', T0 + 2, BILLING_V1)
    same(ids((await list(store, { version: 'v1' })).runs), ['billing-1', 'orders-1'], 'v1')
    same(ids((await list(store, { version: 'v2' })).runs), ['orders-2'], 'v2')
    const v1Orders = { workflow: 'orders', version: 'v1' }
    same(ids((await list(store, v1Orders)).runs), ['orders-1'], 'orders v1')
    same(ids((await list(store, { version: 'v9' })).runs), [], 'an unknown version')
  })

  define('createdFrom is inclusive, createdBefore exclusive', async (store) => {
    for (let i = 0; i < 5; i++) await createPending(store, `run-${i}`, T0 + i * 10)
    const cases: Array<[ListRunsQuery, string[]]> = [
      [{ createdFrom: T0 + 20 }, ['run-4', 'run-3', 'run-2']],
      [{ createdFrom: T0 + 21 }, ['run-4', 'run-3']],
      [{ createdBefore: T0 + 20 }, ['run-1', 'run-0']],
      [{ createdBefore: T0 + 21 }, ['run-2', 'run-1', 'run-0']],
      [{ createdFrom: T0 + 10, createdBefore: T0 + 30 }, ['run-2', 'run-1']],
      [{ createdFrom: T0 + 30, createdBefore: T0 + 30 }, []],
      [{ createdFrom: T0 + 30, createdBefore: T0 + 10 }, []],
    ]
    for (const [query, expected] of cases)
      same(ids((await list(store, query)).runs), expected, `listRuns(${JSON.stringify(query)})`)
  })

  define('a time window pages with the cursor, shared createdAt included', async (store) => {
    for (let i = 0; i < 12; i++) await createPending(store, `run-${i % 3}-${i}`, T0 + (i >> 2))
    // createdAt: i >> 2 → 0,0,0,0,1,1,1,1,2,2,2,2; the window keeps createdAt 1 only.
    const window = { createdFrom: T0 + 1, createdBefore: T0 + 2 }
    const expected = ['run-2-5', 'run-1-7', 'run-1-4', 'run-0-6'] // id desc at one createdAt
    same(await listIds(store, { ...window, limit: 1 }), expected, 'one run per page')
    same(await listIds(store, { ...window, limit: 3 }), expected, 'three runs per page')
  })

  define('idContains matches a literal, case-sensitive substring', async (store) => {
    for (const [i, id] of ODD_IDS.entries()) await createPending(store, id, T0 + i)
    const cases: Array<[string, string[]]> = [
      ['order-', ['order-\\x', 'order-!x', 'order-axb', 'order-1000', 'order-100%']],
      ['ORDER', ['ORDER-a_b']],
      ['0%', ['order-100%']], // `%` is not "anything": order-1000 stays out
      ['a_b', ['ORDER-a_b']], // `_` is not "one character": order-axb stays out
      ['!x', ['order-!x']], // the escape character itself
      ['\\x', ['order-\\x']], // a backslash, MySQL's default escape
      ['%', ['order-100%']],
      ['_', ['ORDER-a_b']],
      ['Order', []],
      ['order-1000-', []],
    ]
    for (const [text, expected] of cases)
      same(ids((await list(store, { idContains: text })).runs), expected, `idContains ${text}`)
  })

  define('idContains matches whole characters beyond ASCII', async (store) => {
    await createPending(store, 'run-caf\u00e9-\u{1F600}', T0)
    await createPending(store, 'run-cafe', T0 + 1)
    same(
      ids((await list(store, { idContains: '\u00e9-\u{1F600}' })).runs),
      ['run-caf\u00e9-\u{1F600}'],
      'é-😀',
    )
    same(ids((await list(store, { idContains: 'cafe' })).runs), ['run-cafe'], 'cafe (not é)')
    same(ids((await list(store, { idContains: 'x'.repeat(255) })).runs), [], '255 characters')
  })

  define('every filter combines with status, search attributes and the cursor', async (store) => {
    for (let i = 0; i < 8; i++) {
      const fence = await startRun(store, `job-${i}`, T0 + i, {
        key: i % 2 ? ORDERS_V2 : ORDERS_V1,
      })
      const save = {
        type: 'saveCheckpoint' as const,
        fence,
        checkpoint: checkpoint(fence.runId, 0, { kind: 'search_attrs', name: 'attributes' }),
        searchAttributes: { tier: i < 6 ? 'gold' : 'silver' },
      }
      expectApplied(await applyOne(store, save, T0 + 20), `attributes of job-${i}`)
      if (i % 4 !== 0) await finish(store, fence, T0 + 30)
    }
    await createPending(store, 'other-9', T0 + 9, ORDERS_V2)
    const query: ListRunsQuery = {
      workflow: 'orders',
      version: 'v2',
      status: 'completed',
      createdFrom: T0 + 1,
      createdBefore: T0 + 9,
      idContains: 'job-',
      searchAttributes: { tier: 'gold' },
    }
    // v2: odd i; completed: i % 4 != 0; gold: i < 6 → job-1, job-3, job-5.
    same(await listIds(store, { ...query, limit: 1 }), ['job-5', 'job-3', 'job-1'], 'paged by one')
    same(await listIds(store, { ...query, limit: 2 }), ['job-5', 'job-3', 'job-1'], 'paged by two')
    same(
      await listIds(store, { ...query, createdBefore: T0 + 5, status: ['completed', 'running'] }),
      ['job-3', 'job-1'],
      'a narrower window',
    )
  })

  define('malformed new filters are refused with E_INVALID_ARGUMENT', async (store) => {
    await createPending(store, 'run-1', T0)
    for (const [what, query] of INVALID_FILTERS)
      await expectRejection(() => store.listRuns(query), 'E_INVALID_ARGUMENT', what)
    assert.equal((await store.listRuns({ idContains: 'run' })).runs.length, 1, 'still lists')
  })
}
