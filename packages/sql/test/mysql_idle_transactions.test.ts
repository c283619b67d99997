/**
 * MariaDB ends a store connection left idle inside a transaction (`idleTransactionTimeoutS`):
 * a process frozen mid-transaction (SIGSTOP, a VM pause, a hung event loop) must not keep the
 * row locks it took — its runs' rows — from the engines that take those runs over.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createMysqlStore } from '@cairn/sql/mysql'
import { poolOfStore } from '../src/mysql/debug_access.ts'
import type { SqlPool } from '../src/shared/driver.ts'
import { assertFrozenHolderLosesItsLock } from './helpers/frozen_holder.ts'
import { MYSQL_URL, adminQuery, mysqlTest, storeInFreshDatabase } from './helpers/mysql.ts'

/** MariaDB only: MySQL has no idle_transaction_timeout (those tests report skipped there). */
async function onMariaDb(): Promise<typeof mysqlTest> {
  const version = await adminQuery('SELECT VERSION()').then(
    (rows) => String(rows[0]?.[0]),
    () => 'unreachable', // mysqlTest itself reports a server that is down
  )
  if (/mariadb|unreachable/i.test(version)) return mysqlTest
  return (name) =>
    void test(name, { skip: `MySQL ${version} has no idle_transaction_timeout` }, () => {})
}

const mariaDbTest = await onMariaDb()

async function sessionTimeout(pool: SqlPool): Promise<number> {
  const result = await pool.query({
    text: 'SELECT @@SESSION.idle_transaction_timeout',
    values: [],
  })
  return Number(result.rows[0]?.[0])
}

mariaDbTest(
  'the store sets idle_transaction_timeout on its own connections (default 30 s; 0: the server’s)',
  async () => {
    for (const [options, expected] of [
      [{}, 30],
      [{ idleTransactionTimeoutS: 7 }, 7],
      [{ idleTransactionTimeoutS: 0 }, 0],
    ] as const) {
      const { store, cleanup } = storeInFreshDatabase(options)
      try {
        await store.open()
        assert.equal(await sessionTimeout(poolOfStore.get(store) as SqlPool), expected)
      } finally {
        await store.close()
        await cleanup()
      }
    }
  },
)

mariaDbTest(
  'a transaction idle past the timeout loses its connection and its row locks',
  async () => {
    const { store, database, cleanup } = storeInFreshDatabase({ idleTransactionTimeoutS: 1 })
    try {
      await store.open()
      const pool = poolOfStore.get(store) as SqlPool
      const runs = `\`${database}\`.cairn_runs`
      await adminQuery(
        `INSERT INTO ${runs} (id, workflow, version, status, input, created_at, updated_at, lease_epoch, turns)
       VALUES ('held', 'w', '1', 'pending', 'null', 1, 1, 0, 0)`,
      )
      await assertFrozenHolderLosesItsLock({
        pool,
        lockSql: `SELECT id FROM ${runs} WHERE id = 'held' FOR UPDATE`,
        lockNowait: async () =>
          (await adminQuery(`SELECT id FROM ${runs} WHERE id = 'held' FOR UPDATE NOWAIT`)).map(
            (row) => String(row[0]),
          ),
      })
    } finally {
      await store.close()
      await cleanup()
    }
  },
)

mysqlTest('idleTransactionTimeoutS must be whole seconds', async () => {
  for (const idleTransactionTimeoutS of [-1, 1.5, Number.NaN, 40_000_000])
    assert.throws(() => createMysqlStore({ uri: MYSQL_URL, idleTransactionTimeoutS }), {
      code: 'E_INVALID_ARGUMENT',
    })
})
