/**
 * The `claimableBefore` filter of listRuns and facetRuns: open runs whose claimableAt (the
 * store's availableAt) is before a time, which is how a dashboard lists stuck runs. Parked and
 * finished runs have no claimableAt and never match, however late the time.
 */
import type { ListRunsQuery, StateStore } from '@cairn/core/contracts'
import { BILLING_V1, LEASE_MS, NON_DETERMINISM, T0 } from './fixtures.ts'
import { same, type Define } from './harness.ts'
import {
  createPending,
  finish,
  ids,
  list,
  listAll,
  park,
  startRun,
  suspend,
} from './store_calls.ts'

/** Far beyond every time the tests use: only runs without a claimableAt stay out. */
const LATEST = Number.MAX_SAFE_INTEGER
/** A timer nobody reaches in these tests. */
const FUTURE = T0 + 1_000 * LEASE_MS

/**
 * One run per kind (createdAt T0 + i): a pending run claimable at T0, a running run whose lease
 * ends at T0 + 1 + LEASE_MS, waiting runs due at T0 + 100, at FUTURE and never (no timer), a
 * parked run and a completed one.
 */
async function seed(store: StateStore): Promise<void> {
  await createPending(store, 'pending', T0)
  await startRun(store, 'leased', T0 + 1)
  await suspend(store, await startRun(store, 'due-timer', T0 + 2), T0 + 100, T0 + 2)
  await suspend(store, await startRun(store, 'future-timer', T0 + 3), FUTURE, T0 + 3)
  await suspend(store, await startRun(store, 'no-timer', T0 + 4), null, T0 + 4)
  await park(store, await startRun(store, 'parked', T0 + 5), NON_DETERMINISM, T0 + 5)
  await finish(store, await startRun(store, 'completed', T0 + 6), T0 + 6)
}

async function listIds(store: StateStore, query: ListRunsQuery): Promise<string[]> {
  return ids((await list(store, query)).runs)
}

export function claimableFilterTests(define: Define): void {
  define('claimableBefore is exclusive and matches open runs only', async (store) => {
    await seed(store)
    const cases: Array<[number, string[]]> = [
      [T0, []],
      [T0 + 1, ['pending']],
      [T0 + 100, ['pending']],
      [T0 + 101, ['due-timer', 'pending']],
      [T0 + 2 + LEASE_MS, ['due-timer', 'leased', 'pending']],
      [FUTURE + 1, ['future-timer', 'due-timer', 'leased', 'pending']],
      [LATEST, ['future-timer', 'due-timer', 'leased', 'pending']],
    ]
    for (const [time, expected] of cases)
      same(await listIds(store, { claimableBefore: time }), expected, `claimableBefore ${time}`)
  })

  define('claimableBefore combines with status, workflow and the cursor', async (store) => {
    for (let i = 0; i < 6; i++) {
      await createPending(store, `stuck-${i}`, T0 + i, i % 3 === 2 ? BILLING_V1 : undefined)
      await startRun(store, `leased-${i}`, T0 + 10 + i)
    }
    await createPending(store, 'recent', T0 + 10 * LEASE_MS)
    const query: ListRunsQuery = { claimableBefore: T0 + 5 * LEASE_MS, workflow: 'orders' }
    const orders = ['leased-5', 'leased-4', 'leased-3', 'leased-2', 'leased-1', 'leased-0']
    const stuckOrders = ['stuck-4', 'stuck-3', 'stuck-1', 'stuck-0']
    same(ids(await listAll(store, { ...query, limit: 1 })), [...orders, ...stuckOrders], 'by one')
    same(
      ids(await listAll(store, { ...query, status: 'pending', limit: 3 })),
      stuckOrders,
      'pending orders, by three',
    )
    same(
      ids(await listAll(store, { ...query, status: ['pending', 'waiting'], limit: 2 })),
      stuckOrders,
      'pending or waiting orders, by two',
    )
    same(
      ids(await listAll(store, { claimableBefore: T0 + 3, workflow: 'billing', limit: 1 })),
      ['stuck-2'],
      'billing, before the later leases',
    )
  })

  define('facetRuns counts the runs claimableBefore lists', async (store) => {
    await seed(store)
    await createPending(store, 'billing', T0 + 7, BILLING_V1)
    same(
      await store.facetRuns({ claimableBefore: T0 + 101 }),
      {
        byStatus: { pending: 2, waiting: 1 },
        byWorkflow: [
          { workflow: 'orders', count: 2 },
          { workflow: 'billing', count: 1 },
        ],
      },
      'due by T0 + 101',
    )
    same(
      await store.facetRuns({ claimableBefore: LATEST, status: 'waiting', workflow: 'billing' }),
      {
        byStatus: { pending: 1 },
        byWorkflow: [{ workflow: 'orders', count: 2 }],
      },
      'each count ignores its own filter, never parked or finished runs',
    )
  })
}
