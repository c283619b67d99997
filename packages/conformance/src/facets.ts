/**
 * facetRuns: counts per status (ignoring the status filter) and per workflow (ignoring the
 * workflow filter, the 100 largest, most first, ties by name), every other filter applied.
 */
import type { RunFacets, StateStore } from '@cairn/core/contracts'
import { BILLING_V1, ORDERS_V1, ORDERS_V2, T0, checkpoint } from './fixtures.ts'
import { expectRejection, same, type Define } from './harness.ts'
import { INVALID_FILTERS } from './list_filters.ts'
import { applyOne, createPending, expectApplied, finish, startRun } from './store_calls.ts'

const REPORTS_V1 = { workflow: 'reports', version: 'v1' }

/**
 * orders v1: pending o-p1, running o-r1, completed o-c1 o-c2; orders v2: completed o-c3 (T0 + 5);
 * billing v1: pending b-p1, completed b-c1; reports v1: pending r-p1 (T0 + 20).
 */
async function seed(store: StateStore): Promise<void> {
  await createPending(store, 'o-p1', T0, ORDERS_V1)
  await startRun(store, 'o-r1', T0 + 1)
  await finish(store, await startRun(store, 'o-c1', T0 + 2), T0 + 10)
  await finish(store, await startRun(store, 'o-c2', T0 + 3), T0 + 10)
  await finish(store, await startRun(store, 'o-c3', T0 + 5, { key: ORDERS_V2 }), T0 + 10)
  await createPending(store, 'b-p1', T0 + 6, BILLING_V1)
  await finish(store, await startRun(store, 'b-c1', T0 + 7, { key: BILLING_V1 }), T0 + 10)
  await createPending(store, 'r-p1', T0 + 20, REPORTS_V1)
}

async function facets(store: StateStore, query: Parameters<StateStore['facetRuns']>[0]) {
  return store.facetRuns(query)
}

export function facetTests(define: Define): void {
  define('an empty store has no counts', async (store) => {
    same(await facets(store, {}), { byStatus: {}, byWorkflow: [] }, 'facetRuns({})')
  })

  define('counts every run per status and per workflow', async (store) => {
    await seed(store)
    const expected: RunFacets = {
      byStatus: { pending: 3, running: 1, completed: 4 },
      byWorkflow: [
        { workflow: 'orders', count: 5 },
        { workflow: 'billing', count: 2 },
        { workflow: 'reports', count: 1 },
      ],
    }
    same(await facets(store, {}), expected, 'facetRuns({})')
  })

  define(
    'the status facet ignores the status filter, the workflow facet the workflow one',
    async (store) => {
      await seed(store)
      same(
        await facets(store, { status: 'completed', workflow: 'orders' }),
        {
          byStatus: { pending: 1, running: 1, completed: 3 }, // orders, any status
          byWorkflow: [
            { workflow: 'orders', count: 3 }, // completed, any workflow
            { workflow: 'billing', count: 1 },
          ],
        },
        'completed orders',
      )
      same(
        await facets(store, { status: [] }),
        { byStatus: { pending: 3, running: 1, completed: 4 }, byWorkflow: [] },
        'an empty status list matches no run (except in the facet that ignores it)',
      )
    },
  )

  define('every other filter applies to both counts', async (store) => {
    await seed(store)
    same(
      await facets(store, { version: 'v1', createdFrom: T0 + 1, createdBefore: T0 + 20 }),
      {
        byStatus: { pending: 1, running: 1, completed: 3 },
        byWorkflow: [
          { workflow: 'orders', count: 3 },
          { workflow: 'billing', count: 2 },
        ],
      },
      'v1 runs created in [T0 + 1, T0 + 20)',
    )
    same(
      await facets(store, { idContains: '-c' }),
      {
        byStatus: { completed: 4 },
        byWorkflow: [
          { workflow: 'orders', count: 3 },
          { workflow: 'billing', count: 1 },
        ],
      },
      'idContains -c',
    )
  })

  define('search attributes and parentRunId filter the counts', async (store) => {
    await seed(store)
    for (const [i, id] of ['o-r1', 'o-p2'].entries()) {
      const fence = id === 'o-r1' ? { runId: id, epoch: 1 } : await startRun(store, id, T0 + 30 + i)
      const save = {
        type: 'saveCheckpoint' as const,
        fence,
        checkpoint: checkpoint(id, 0, { kind: 'search_attrs', name: 'attributes' }),
        searchAttributes: { region: 'eu' },
      }
      expectApplied(await applyOne(store, save, T0 + 40), `attributes of ${id}`)
    }
    same(
      await facets(store, { searchAttributes: { region: 'eu' } }),
      { byStatus: { running: 2 }, byWorkflow: [{ workflow: 'orders', count: 2 }] },
      'region eu',
    )
    same(
      await facets(store, { parentRunId: 'o-r1' }),
      { byStatus: {}, byWorkflow: [] },
      'no children',
    )
  })

  define('lists the 100 largest workflows, ties by name in code point order', async (store) => {
    // 102 workflows: "big" with 3 runs, "mid" with 2, then 100 with one run each, named so
    // that code point order differs from a case-insensitive one (B before a).
    await createPending(store, 'big-1', T0, { workflow: 'big', version: 'v1' })
    await createPending(store, 'big-2', T0, { workflow: 'big', version: 'v1' })
    await createPending(store, 'big-3', T0, { workflow: 'big', version: 'v1' })
    await createPending(store, 'mid-1', T0, { workflow: 'mid', version: 'v1' })
    await createPending(store, 'mid-2', T0, { workflow: 'mid', version: 'v1' })
    const singles = Array.from(
      { length: 100 },
      (_, i) => `${i % 2 ? 'a' : 'B'}${String(i).padStart(3, '0')}`,
    )
    for (const name of singles)
      await createPending(store, `one-${name}`, T0 + 1, { workflow: name, version: 'v1' })
    const { byWorkflow } = await facets(store, {})
    const firstSingles = [...singles].sort().slice(0, 98)
    same(
      byWorkflow,
      [
        { workflow: 'big', count: 3 },
        { workflow: 'mid', count: 2 },
        ...firstSingles.map((workflow) => ({ workflow, count: 1 })),
      ],
      'the top 100',
    )
  })

  define('malformed filters are refused with E_INVALID_ARGUMENT', async (store) => {
    for (const [what, query] of INVALID_FILTERS)
      await expectRejection(() => store.facetRuns(query), 'E_INVALID_ARGUMENT', what)
    await expectRejection(
      () => store.facetRuns({ searchAttributes: { tier: { near: 1 } } as never }),
      'E_INVALID_ARGUMENT',
      'an unknown search attribute operator',
    )
  })
}
