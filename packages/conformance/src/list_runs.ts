/**
 * listRuns: newest first (createdAt desc, id desc), filters, and keyset pagination that
 * neither repeats nor skips a run, even when many runs share a createdAt.
 */
import assert from 'node:assert/strict'
import type { ListRunsQuery, StateStore } from '@cairn/core/contracts'
import { BILLING_V1, T0 } from './fixtures.ts'
import { same, type Define } from './harness.ts'
import {
  apply,
  createPending,
  finish,
  ids,
  list,
  listAll,
  mustGetRun,
  startRun,
} from './store_calls.ts'

export function listRunsTests(define: Define): void {
  define('an empty store lists nothing', async (store) => {
    same(await list(store, {}), { runs: [], nextCursor: null }, 'listRuns({})')
  })

  define('lists newest first with full records', async (store) => {
    await createPending(store, 'run-b', T0 + 1)
    await createPending(store, 'run-a', T0 + 2)
    await createPending(store, 'run-c', T0)
    const page = await list(store, {})
    same(ids(page.runs), ['run-a', 'run-b', 'run-c'], 'order (createdAt desc)')
    same(
      page.runs,
      [
        await mustGetRun(store, 'run-a'),
        await mustGetRun(store, 'run-b'),
        await mustGetRun(store, 'run-c'),
      ],
      'records',
    )
    assert.equal(page.nextCursor, null, 'nextCursor of the only page')
  })

  define('runs sharing createdAt are ordered by id desc, by code point', async (store) => {
    // Code point order: B < a < é < U+FFFD < 😀. UTF-16 order would put 😀 before U+FFFD.
    const shuffled = ['run-\u00e9', 'run-\u{1F600}', 'run-B', 'run-\uFFFD', 'run-a']
    for (const id of shuffled) await createPending(store, id, T0)
    await createPending(store, 'older', T0 - 1)
    const expected = ['run-\u{1F600}', 'run-\uFFFD', 'run-\u00e9', 'run-a', 'run-B', 'older']
    same(ids((await list(store, {})).runs), expected, 'order of ids at one createdAt')
    same(ids(await listAll(store, { limit: 1 })), expected, 'the same order one run per page')
  })

  define('the default limit is 50', async (store) => {
    for (let i = 0; i < 55; i++)
      await createPending(store, `run-${String(i).padStart(2, '0')}`, T0 + i)
    const first = await list(store, {})
    assert.equal(first.runs.length, 50, 'runs on the first page')
    assert.notEqual(first.nextCursor, null, 'a first page of 55 runs needs a cursor')
    const second = await list(store, { cursor: first.nextCursor as string })
    same(ids(second.runs), ['run-04', 'run-03', 'run-02', 'run-01', 'run-00'], 'the second page')
    assert.equal(second.nextCursor, null, 'nextCursor of the last page')
  })

  define('filters by workflow, by status and by a list of statuses', async (store) => {
    await createPending(store, 'orders-pending', T0)
    await createPending(store, 'billing-pending', T0 + 1, BILLING_V1)
    await startRun(store, 'orders-running', T0 + 2)
    await finish(store, await startRun(store, 'orders-done', T0 + 3), T0 + 4)
    await finish(store, await startRun(store, 'billing-done', T0 + 5, { key: BILLING_V1 }), T0 + 6)
    const cases: Array<[ListRunsQuery, string[]]> = [
      [{ workflow: 'orders' }, ['orders-done', 'orders-running', 'orders-pending']],
      [{ workflow: 'nothing' }, []],
      [{ status: 'completed' }, ['billing-done', 'orders-done']],
      [{ status: ['pending', 'running'] }, ['orders-running', 'billing-pending', 'orders-pending']],
      [{ workflow: 'billing', status: ['completed', 'running'] }, ['billing-done']],
    ]
    for (const [query, expected] of cases) {
      same(ids((await list(store, query)).runs), expected, `listRuns(${JSON.stringify(query)})`)
    }
  })

  define('a status list padded with hundreds of values that are no status', async (store) => {
    await createPending(store, 'waiting-for-a-claim', T0)
    await finish(store, await startRun(store, 'done', T0 + 1), T0 + 2)
    const padding = Array.from({ length: 600 }, (_, i) => `no-status-${i}`)
    const status = ['pending', 'completed', ...padding] as ListRunsQuery['status']
    same(
      ids((await list(store, { status })).runs),
      ['done', 'waiting-for-a-claim'],
      'the real ones',
    )
    const none = padding as ListRunsQuery['status']
    same(await list(store, { status: none }), { runs: [], nextCursor: null }, 'none real')
  })

  define('pages over 2.5 pages with shared createdAt: no duplicate, no omission', async (store) => {
    const expected = await createMany(store, 25, 3)
    const pages = await pageSizes(store, { limit: 10 })
    same(pages.sizes, [10, 10, 5], 'page sizes')
    same(pages.ids, expected, 'runs over all pages, in order')
  })

  define('pages with a status filter', async (store) => {
    const all = await createMany(store, 25, 4)
    const cancelled = all.filter((_, i) => i % 2 === 0)
    for (const id of cancelled)
      await apply(store, [{ type: 'cancelRun', runId: id, error: '"x"' }], T0 + 1_000)
    const pages = await pageSizes(store, { limit: 5, status: 'cancelled' })
    same(pages.sizes, [5, 5, 3], 'page sizes')
    same(pages.ids, cancelled, 'cancelled runs over all pages')
  })

  define('a page that ends at the last run has nextCursor null', async (store) => {
    await createMany(store, 20, 2)
    const pages = await pageSizes(store, { limit: 10 })
    same(pages.sizes, [10, 10], 'page sizes: no trailing empty page')
  })

  define('runs created between two pages do not shift the next page', async (store) => {
    const expected = await createMany(store, 15, 2)
    const first = await list(store, { limit: 10 })
    for (let i = 0; i < 5; i++) await createPending(store, `newer-${i}`, T0 + 10_000 + i)
    const second = await list(store, { limit: 10, cursor: first.nextCursor as string })
    same([...ids(first.runs), ...ids(second.runs)], expected, 'the two pages')
    assert.equal(second.nextCursor, null, 'nextCursor of the last page')
  })
}

/** Creates `count` runs, `perTime` per createdAt, in shuffled id order; returns ids newest first. */
async function createMany(store: StateStore, count: number, perTime: number): Promise<string[]> {
  const runs = Array.from({ length: count }, (_, i) => ({
    id: `run-${String((i * 7) % count).padStart(3, '0')}`,
    at: T0 + Math.floor(i / perTime),
  }))
  for (const run of runs) await createPending(store, run.id, run.at)
  runs.sort((a, b) => b.at - a.at || (a.id < b.id ? 1 : -1))
  return runs.map((run) => run.id)
}

async function pageSizes(store: StateStore, query: ListRunsQuery) {
  const sizes: number[] = []
  const seen: string[] = []
  let cursor: string | undefined
  do {
    const page = await list(store, cursor === undefined ? query : { ...query, cursor })
    sizes.push(page.runs.length)
    seen.push(...ids(page.runs))
    cursor = page.nextCursor ?? undefined
    assert.ok(sizes.length <= 100, 'listRuns keeps returning cursors: pagination does not end')
  } while (cursor !== undefined)
  return { sizes, ids: seen }
}
