/**
 * listRuns `order`: oldest first is exactly the reverse of newest first (createdAt, then id by
 * code point), with every filter and across pages; a cursor continues the order of the list
 * that issued it and is refused (E_INVALID_CURSOR) with the other one.
 */
import assert from 'node:assert/strict'
import type {
  ListRunsQuery,
  NewRun,
  RunListOrder,
  RunStatus,
  StateStore,
  WorkflowKey,
} from '@cairn/core/contracts'
import { BILLING_V1, LEASE_MS, OWNER_A, ORDERS_V1, T0, checkpoint, newRun } from './fixtures.ts'
import { expectRejection, same, type Define } from './harness.ts'
import { applyOne, createPending, expectApplied, ids, list } from './store_calls.ts'

/** A seeded run, as the filters below see it. */
interface Seeded {
  id: string
  createdAt: number
  key: WorkflowKey
  tags: string[]
  status: RunStatus
  /** The search attribute `group`, when set. */
  group: string | null
  claimableAt: number
}

const RUNS = 18

/**
 * 18 runs, three per createdAt with ids shuffled against creation order: billing every third,
 * tagged `even` every second, leased (running) unless i % 3 === 2 (pending), and the leased
 * ones with i % 4 === 0 carry the search attribute group = 'a'.
 */
async function seed(store: StateStore): Promise<Seeded[]> {
  const seeded: Seeded[] = []
  for (let i = 0; i < RUNS; i++) {
    const createdAt = T0 + Math.floor(i / 3)
    const run: Seeded = {
      id: `run-${String((i * 7) % RUNS).padStart(2, '0')}`,
      createdAt,
      key: i % 3 === 0 ? BILLING_V1 : ORDERS_V1,
      tags: i % 2 === 0 ? ['even'] : [],
      status: i % 3 === 2 ? 'pending' : 'running',
      group: i % 3 !== 2 && i % 4 === 0 ? 'a' : null,
      claimableAt: i % 3 === 2 ? createdAt : createdAt + LEASE_MS,
    }
    await create(store, run)
    seeded.push(run)
  }
  return seeded
}

async function create(store: StateStore, run: Seeded): Promise<void> {
  const created: NewRun = {
    ...newRun(run.id, { key: run.key, createdAt: run.createdAt }),
    tags: run.tags,
  }
  const claim = run.status === 'running' ? { owner: OWNER_A, leaseMs: LEASE_MS } : undefined
  const result = await applyOne(
    store,
    { type: 'createRun', run: created, ...(claim ? { claim } : {}) },
    run.createdAt,
  )
  expectApplied(result, `createRun ${run.id}`)
  if (run.group === null) return
  const op = {
    type: 'saveCheckpoint' as const,
    fence: { runId: run.id, epoch: 1 },
    checkpoint: checkpoint(run.id, 0, { kind: 'search_attrs', name: 'search_attributes' }),
    searchAttributes: { group: run.group },
  }
  expectApplied(await applyOne(store, op, run.createdAt), `search attribute of ${run.id}`)
}

/** The seeded runs a query matches, newest first. */
function expectedNewest(runs: readonly Seeded[], matches: (run: Seeded) => boolean): string[] {
  return runs
    .filter(matches)
    .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1))
    .map((run) => run.id)
}

/** Every page of `query` in `order`, following cursors; each page checked for its size. */
async function pageAll(
  store: StateStore,
  query: ListRunsQuery,
  order: RunListOrder,
): Promise<string[]> {
  const found: string[] = []
  let cursor: string | undefined
  for (let pages = 0; pages < 100; pages++) {
    const page = await list(store, { ...query, order, ...(cursor ? { cursor } : {}) })
    if (page.nextCursor !== null)
      assert.equal(page.runs.length, query.limit, `a page with a cursor is full (${order})`)
    found.push(...ids(page.runs))
    if (page.nextCursor === null) return found
    cursor = page.nextCursor
  }
  assert.fail('listRuns keeps returning cursors: pagination does not end')
}

const FILTERS: Array<[string, ListRunsQuery, (run: Seeded) => boolean]> = [
  ['no filter', {}, () => true],
  ['status', { status: 'running' }, (run) => run.status === 'running'],
  ['workflow', { workflow: 'billing' }, (run) => run.key.workflow === 'billing'],
  ['tag', { tag: 'even' }, (run) => run.tags.includes('even')],
  [
    'tag and status',
    { tag: 'even', status: 'pending' },
    (run) => run.tags.includes('even') && run.status === 'pending',
  ],
  ['search attribute', { searchAttributes: { group: 'a' } }, (run) => run.group === 'a'],
  ['claimableBefore', { claimableBefore: T0 + 4 }, (run) => run.claimableAt < T0 + 4],
  [
    'creation window',
    { createdFrom: T0 + 1, createdBefore: T0 + 4 },
    (run) => run.createdAt >= T0 + 1 && run.createdAt < T0 + 4,
  ],
  ['idContains', { idContains: '1' }, (run) => run.id.includes('1')],
  // A list of statuses is read as one ordered range per status, merged (SQL stores): each
  // combination must keep the one order and page boundaries of a single range.
  [
    'status list',
    { status: ['pending', 'running'] },
    (run) => run.status === 'pending' || run.status === 'running',
  ],
  [
    'status list with a status no run has',
    { status: ['failed', 'pending', 'completed'] },
    (run) => run.status === 'pending',
  ],
  [
    'status list and workflow',
    { status: ['running', 'pending'], workflow: 'orders' },
    (run) => run.key.workflow === 'orders',
  ],
  [
    'status list and search attribute',
    { status: ['pending', 'running'], searchAttributes: { group: 'a' } },
    (run) => run.group === 'a',
  ],
  [
    'status list and creation window',
    { status: ['running', 'pending'], createdFrom: T0 + 1, createdBefore: T0 + 5 },
    (run) => run.createdAt >= T0 + 1 && run.createdAt < T0 + 5,
  ],
  [
    'status list and tag',
    { status: ['running', 'pending'], tag: 'even' },
    (run) => run.tags.includes('even'),
  ],
]

export function listOrderTests(define: Define): void {
  define('oldest first: createdAt ascending, ties by id ascending by code point', async (store) => {
    const shuffled = ['run-\u00e9', 'run-\u{1F600}', 'run-B', 'run-\uFFFD', 'run-a']
    for (const id of shuffled) await createPending(store, id, T0)
    await createPending(store, 'older', T0 - 1)
    await createPending(store, 'newer', T0 + 1)
    const expected = [
      'older',
      'run-B',
      'run-a',
      'run-\u00e9',
      'run-\uFFFD',
      'run-\u{1F600}',
      'newer',
    ]
    same(ids((await list(store, { order: 'oldest' })).runs), expected, 'oldest first')
    same(await pageAll(store, { limit: 1 }, 'oldest'), expected, 'one run per page')
    same(await pageAll(store, { limit: 1 }, 'newest'), expected.toReversed(), 'newest first')
  })

  define(
    'every page in both orders: each run once, one order the reverse of the other',
    async (store) => {
      const runs = await seed(store)
      const newest = expectedNewest(runs, () => true)
      for (const limit of [1, 4, 7, RUNS, 1000]) {
        same(await pageAll(store, { limit }, 'newest'), newest, `newest first, limit ${limit}`)
        same(
          await pageAll(store, { limit }, 'oldest'),
          newest.toReversed(),
          `oldest, limit ${limit}`,
        )
      }
    },
  )

  define('oldest first with each filter, over pages', async (store) => {
    const runs = await seed(store)
    for (const [what, query, matches] of FILTERS) {
      const newest = expectedNewest(runs, matches)
      assert.ok(newest.length >= 2, `${what}: the seed gives this filter at least two runs`)
      same(await pageAll(store, { ...query, limit: 2 }, 'newest'), newest, `${what}, newest`)
      same(
        await pageAll(store, { ...query, limit: 2 }, 'oldest'),
        newest.toReversed(),
        `${what}, oldest`,
      )
    }
  })

  define('oldest first: runs created between two pages come on a later page', async (store) => {
    for (let i = 0; i < 4; i++) await createPending(store, `run-${i}`, T0 + i)
    const first = await list(store, { order: 'oldest', limit: 3 })
    await createPending(store, 'later', T0 + 10)
    const second = await list(store, { order: 'oldest', limit: 3, cursor: first.nextCursor ?? '' })
    same(
      [ids(first.runs), ids(second.runs)],
      [
        ['run-0', 'run-1', 'run-2'],
        ['run-3', 'later'],
      ],
      'pages',
    )
  })

  define('an unknown order is refused with E_INVALID_ARGUMENT', async (store) => {
    await createPending(store, 'run-1', T0)
    for (const order of ['asc', 'desc', 'OLDEST', '', null, 1]) {
      await expectRejection(
        () => store.listRuns({ order: order as RunListOrder }),
        'E_INVALID_ARGUMENT',
        `order ${JSON.stringify(order)}`,
      )
    }
  })

  define('a cursor used with the other order is refused with E_INVALID_CURSOR', async (store) => {
    for (let i = 0; i < 3; i++) await createPending(store, `run-${i}`, T0 + i)
    const newest = (await list(store, { limit: 1 })).nextCursor
    const oldest = (await list(store, { limit: 1, order: 'oldest' })).nextCursor
    assert.ok(newest !== null && oldest !== null, 'a page of 1 out of 3 runs has a nextCursor')
    await expectRejection(
      () => store.listRuns({ limit: 1, order: 'oldest', cursor: newest }),
      'E_INVALID_CURSOR',
      'a newest-first cursor with order oldest',
    )
    await expectRejection(
      () => store.listRuns({ limit: 1, cursor: oldest }),
      'E_INVALID_CURSOR',
      'an oldest-first cursor with the default order',
    )
    same(ids((await list(store, { limit: 1, cursor: newest })).runs), ['run-1'], 'newest goes on')
    same(
      ids((await list(store, { limit: 1, order: 'oldest', cursor: oldest })).runs),
      ['run-1'],
      'oldest goes on',
    )
  })
}
