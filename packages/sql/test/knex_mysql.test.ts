/**
 * The MySQL/MariaDB store on a Knex instance (mysql2): close() leaves Knex open; the store's
 * transactions run at READ COMMITTED while the application's sessions keep their level; a
 * connection the server killed while the store held it does not reach the application again.
 */
import assert from 'node:assert/strict'
import type { StoreOp } from '@cairn/core/contracts'
import type { Knex } from 'knex'
import mysql from 'mysql2/promise'
import { mysqlKnex, withKnexStore } from './helpers/knex.ts'
import { MYSQL_URL, adminQuery, mysqlTest } from './helpers/mysql.ts'

const T0 = 2_200_000_000_000

const claimedCreate = (id: string): StoreOp => ({
  type: 'createRun',
  run: { id, workflow: 'w', version: 'v1', input: '{}', createdAt: T0 },
  claim: { owner: 'engine-a', leaseMs: 30_000 },
})

/** One value of the application's next query (mysql2 through Knex: [rows, fields]). */
async function appValue(app: Knex, sql: string): Promise<unknown> {
  const [rows] = (await app.raw(sql)) as [Record<string, unknown>[]]
  return Object.values(rows[0] ?? {})[0]
}

mysqlTest('close() leaves the Knex instance open: the application goes on querying', async () => {
  const app = mysqlKnex(1)
  await withKnexStore(app, async (store, database) => {
    await store.applyBatch([claimedCreate('a')], T0)
    await store.close()
    const id = await appValue(app, `SELECT CAST(id AS CHAR) FROM \`${database}\`.cairn_runs`)
    assert.equal(id, 'a')
  })
})

mysqlTest(
  "the store's transactions run at READ COMMITTED; a connection killed while the store holds it is not handed back",
  async () => {
    const app = mysqlKnex(1)
    await withKnexStore(app, async (store, database) => {
      await store.applyBatch([claimedCreate('a')], T0)
      const sessionLevel = await appValue(app, 'SELECT @@SESSION.tx_isolation')
      assert.equal(sessionLevel, 'REPEATABLE-READ', "the server's default")
      const admin = await mysql.createConnection({ uri: MYSQL_URL })
      try {
        await admin.query('START TRANSACTION')
        await admin.query(`SELECT 1 FROM \`${database}\`.cairn_runs WHERE id = 'a' FOR UPDATE`)
        const renew = { type: 'renewLease', fence: { runId: 'a', epoch: 1 }, leaseMs: 1 } as const
        const writing = store.applyBatch([renew], T0 + 1)
        const [thread, level] = await lockWaiter()
        assert.equal(level, 'READ COMMITTED')
        await adminQuery(`KILL ${thread}`)
        // Nothing was committed: the store retries on a new connection, which waits in turn.
        await lockWaiter(thread)
        await admin.query('ROLLBACK')
        assert.deepEqual(await writing, [{ status: 'applied' }])
        assert.notEqual(await appValue(app, 'SELECT CONNECTION_ID()'), thread, 'a new connection')
        assert.equal(await appValue(app, 'SELECT @@SESSION.tx_isolation'), sessionLevel)
      } finally {
        await admin.end()
      }
    })
  },
)

/**
 * The thread and isolation level of the transaction waiting for a row lock (not `except`'s).
 * The server refreshes innodb_trx only when it was not read for 0.1 s: polled slower than that.
 */
async function lockWaiter(except = 0): Promise<[number, string]> {
  for (let tries = 0; tries < 50; tries++) {
    const [row] = await adminQuery(
      `SELECT trx_mysql_thread_id, trx_isolation_level FROM information_schema.innodb_trx
       WHERE trx_state = 'LOCK WAIT' AND trx_mysql_thread_id <> ?`,
      [except],
    )
    if (row !== undefined) return row as [number, string]
    await new Promise((resolve) => setTimeout(resolve, 150))
  }
  throw new Error('no transaction waited for a lock')
}
