/**
 * Postgres admits a batch's creates in the wave's own statement and writes ends without their
 * key's lock (batch_admission.ts, admission_settle.ts). Both lean on the key row: an admitter
 * raises its `next_seq`, and a statement that waited for the key's lock compares the row it
 * locked with the row of its snapshot. These tests hold a real admitter's transaction open
 * just before its COMMIT while the other statement waits for the key, then let it commit —
 * the interleaving a plain race hits only by luck.
 */
import assert from 'node:assert/strict'
import type { OpResult, StateStore } from '@cairn/core/contracts'
import { createPostgresStore } from '@cairn/sql/postgres'
import { poolOfStore } from '../src/postgres/debug_access.ts'
import type { SqlPool } from '../src/shared/driver.ts'
import { KEY, T0, create, finishOp, holdCommits, statusOf } from './helpers/admission_hold.ts'
import { PG_URL, pgTest, storeInFreshSchema, untilWaitingForLock } from './helpers/postgres.ts'

async function twoStores(schema: string, first: StateStore) {
  const second = createPostgresStore({ connectionString: PG_URL, schema })
  await first.open()
  await second.open()
  return second
}

pgTest(
  'a create admitted in its statement counts an admission that committed while it waited for the key',
  async () => {
    const { store, schema, cleanup } = storeInFreshSchema()
    const other = await twoStores(schema, store)
    let release = () => undefined as void
    try {
      // The key's row exists and its one slot is free.
      await store.applyBatch([create('seed')], T0)
      await store.applyBatch(
        [{ type: 'cancelRun', runId: 'seed', error: '"x"', admission: KEY }],
        T0,
      )
      const held = holdCommits(poolOfStore.get(other) as SqlPool)
      release = held.openAll
      // Tagged: its batch takes the transactional pass, which admits it and stops before COMMIT.
      const admitted = other.applyBatch([create('b', { tags: ['first'] })], T0 + 1)
      await held.held.reached
      const late = store.applyBatch([create('c')], T0 + 2)
      await untilWaitingForLock(schema)
      held.held.open()
      held.afterCommit.open()
      const [b] = await admitted
      const [c] = (await late) as [OpResult]
      assert.deepEqual(b, { status: 'applied', epoch: 0 })
      // The slot went to b: c, whose snapshot predates b's commit, must not be admitted too.
      assert.deepEqual(c, { status: 'applied', epoch: 0, queued: true })
      assert.equal(await statusOf(store, 'b'), 'pending')
      assert.equal(await statusOf(store, 'c'), 'queued')
    } finally {
      release()
      await other.close()
      await store.close()
      await cleanup()
    }
  },
)

pgTest('an end written while a create queues on its key promotes that create itself', async () => {
  const { store, schema, cleanup } = storeInFreshSchema()
  const other = await twoStores(schema, store)
  let release = () => undefined as void
  try {
    await store.applyBatch([create('a', { claim: true })], T0)
    assert.equal(await statusOf(store, 'a'), 'running')
    const held = holdCommits(poolOfStore.get(other) as SqlPool)
    release = held.openAll
    // b queues behind a; its transaction stops before COMMIT, its settling read after it.
    const queued = other.applyBatch([create('b', { tags: ['second'] })], T0 + 1)
    await held.held.reached
    const ending = store.applyBatch([finishOp('a', KEY)], T0 + 2)
    await untilWaitingForLock(schema)
    held.held.open()
    // b committed queued; its own settling read has not run: the end must promote b.
    const [end] = (await ending) as [OpResult]
    assert.deepEqual(end, { status: 'applied', promoted: true })
    assert.equal(await statusOf(store, 'b'), 'pending')
    held.afterCommit.open()
    const [b] = await queued
    assert.deepEqual(b, { status: 'applied', epoch: 0, queued: true })
  } finally {
    release()
    await other.close()
    await store.close()
    await cleanup()
  }
})
