/**
 * What the conformance suite cannot see of queue rates on SQLite: the grant log itself. A
 * rated queue's log keeps only the rows its next grants look back at (each pass that grants
 * prunes the rest), and a queue without a rate writes no row at all.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { DatabaseSync } from 'node:sqlite'
import type { QueueRateLimit, StateStore, StoreOp } from '@cairn/core/contracts'
import { createSqliteStore } from '@cairn/sql/sqlite'
import { connectionOfStore } from '../src/sqlite/debug_access.ts'

const T0 = 2_200_000_000_000
const Q = 'carrier'

/** Creates a leased run and enqueues its position 1 on Q (granted at once when it may be). */
async function enqueue(store: StateStore, id: string, rateLimit: QueueRateLimit | null) {
  const create: StoreOp = {
    type: 'createRun',
    run: { id, workflow: 'w', version: 'v1', input: '{}', createdAt: T0 },
    claim: { owner: 'engine', leaseMs: 60_000 },
  }
  const save: StoreOp = {
    type: 'saveCheckpoint',
    fence: { runId: id, epoch: 1 },
    checkpoint: {
      runId: id,
      seq: 1,
      name: 'call',
      kind: 'step',
      status: 'waiting',
      attempts: 0,
      order: 2,
      input: null,
      output: null,
      error: null,
      wakeAt: null,
      startedAt: T0,
      updatedAt: T0,
      worker: null,
    },
    enqueue: { queue: Q, concurrency: 100, attempt: 1, priority: 0, fairnessKey: '', rateLimit },
  }
  const results = await store.applyBatch([create, save], T0)
  assert.deepEqual(
    results.map((r) => r.status),
    ['applied', 'applied'],
  )
}

async function withStore(body: (store: StateStore, db: DatabaseSync) => Promise<void>) {
  const store = createSqliteStore({ path: ':memory:' })
  await store.open()
  try {
    await body(store, connectionOfStore.get(store) as DatabaseSync)
  } finally {
    await store.close()
  }
}

function logged(db: DatabaseSync): number[] {
  const rows = db.prepare('SELECT grant_no FROM cairn_queue_grant_log ORDER BY grant_no').all()
  return rows.map((row) => Number(row.grant_no))
}

void test('a rated queue logs its grants and prunes those its next grants do not look back at', async () => {
  await withStore(async (store, db) => {
    const rate = { limit: 2, periodMs: 1_000 }
    for (let i = 0; i < 12; i++) await enqueue(store, `r${i}`, rate)
    assert.deepEqual(logged(db), [1, 2], 'two grants in the first period, both logged')
    for (let k = 1; k <= 4; k++) {
      const report = await store.grantQueueSlots([Q], T0 + k * 1_000)
      assert.equal(report.grants.length, 2, `period ${k}: two more`)
      assert.deepEqual(logged(db), [2 * k + 1, 2 * k + 2], `period ${k}: only the last two kept`)
    }
    const [now] = await store.queueStats([Q], T0 + 4_000)
    assert.equal(now?.recentGrants, 2, 'the last two are recent')
    assert.equal(now?.throttled, 2, 'two waiters beside free slots, held back')
    // Still logged a period later (no pass pruned them), but no longer recent.
    const [later] = await store.queueStats([Q], T0 + 5_000)
    assert.equal(later?.recentGrants, 0, 'a period later: none recent')
    assert.equal(later?.throttled, 0)
    assert.deepEqual(logged(db), [9, 10])
  })
})

void test('a queue without a rate logs nothing and stores no rate', async () => {
  await withStore(async (store, db) => {
    for (let i = 0; i < 3; i++) await enqueue(store, `r${i}`, null)
    assert.deepEqual(logged(db), [])
    const row = db.prepare('SELECT rate_limit, rate_period_ms, grants FROM cairn_queues').get()
    assert.deepEqual({ ...row }, { rate_limit: null, rate_period_ms: null, grants: 3 })
    // A rate set later counts from then: the next grant is logged under the queue's counter.
    await enqueue(store, 'r3', { limit: 5, periodMs: 1_000 })
    assert.deepEqual(logged(db), [4])
  })
})
