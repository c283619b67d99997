/**
 * On MySQL/MariaDB an end naming its singleton key is written without the key's lock, and its
 * waiters are promoted by a read right after its commit; a create that queued reads its key
 * again right after its own commit (admission_settle.ts). Here the end commits while the
 * queuing create's transaction is held open between its count and its queue write: the end's
 * read cannot see the waiter, so the create's own read must promote it.
 */
import assert from 'node:assert/strict'
import type { OpResult } from '@cairn/core/contracts'
import { createMysqlStore } from '@cairn/sql/mysql'
import { poolOfStore } from '../src/mysql/debug_access.ts'
import type { SqlPool } from '../src/shared/driver.ts'
import { KEY, T0, create, finishOp, holdCommits, statusOf } from './helpers/admission_hold.ts'
import { MYSQL_URL, mysqlTest, storeInFreshDatabase } from './helpers/mysql.ts'

mysqlTest(
  'a create that queued while its key was being freed promotes itself after its commit',
  async () => {
    const { store, database, cleanup } = storeInFreshDatabase()
    const other = createMysqlStore({ uri: MYSQL_URL, database })
    let release = () => undefined as void
    try {
      await store.open()
      await other.open()
      await store.applyBatch([create('a', { claim: true })], T0)
      // b's transaction stops once it has counted a and decided to queue, before it writes
      // the queue (so it holds no lock of a's row, which a small table's scan would take).
      const queuing = (text: string) => text.includes('waiting_on')
      const held = holdCommits(poolOfStore.get(other) as SqlPool, queuing)
      release = held.openAll
      const queued = other.applyBatch([create('b', { tags: ['second'] })], T0 + 1)
      await held.held.reached
      const finish = finishOp('a', KEY)
      // The end commits and reads its key's waiters before b is queued: none.
      const [end] = (await store.applyBatch([finish], T0 + 2)) as [OpResult]
      assert.deepEqual(end, { status: 'applied' })
      assert.equal(await statusOf(store, 'b'), 'absent')
      held.openAll()
      const [b] = await queued
      assert.deepEqual(b, { status: 'applied', epoch: 0, queued: true })
      assert.equal(await statusOf(store, 'b'), 'pending')
    } finally {
      release()
      await other.close()
      await store.close()
      await cleanup()
    }
  },
)
