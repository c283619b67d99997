/**
 * Rolling-upgrade tests: an engine of an earlier version suspends a run with its own statement,
 * which knows none of the columns later revisions added (wake_on, blocked_epoch…). `scenario`
 * gets the store and that old suspend; the same scenario runs on SQLite, Postgres and MariaDB.
 */
import { test } from 'node:test'
import type { DatabaseSync } from 'node:sqlite'
import type { StateStore } from '@cairn/core/contracts'
import { createSqliteStore } from '@cairn/sql/sqlite'
import { poolOfStore as mysqlPools } from '../../src/mysql/debug_access.ts'
import { poolOfStore as postgresPools } from '../../src/postgres/debug_access.ts'
import type { SqlPool } from '../../src/shared/driver.ts'
import { connectionOfStore } from '../../src/sqlite/debug_access.ts'
import { makeTempDir } from './temp_dir.ts'
import { mysqlTest, storeInFreshDatabase } from './mysql.ts'
import { pgTest, storeInFreshSchema } from './postgres.ts'

export type OldSuspend = (runId: string) => Promise<void>
export type UpgradeScenario = (store: StateStore, oldSuspend: OldSuspend) => Promise<void>

/** The earlier version's suspend: status and wake time, nothing a later revision added. */
const OLD_SUSPEND = `SET status = 'waiting', available_at = NULL, waiting_on = 'old' WHERE id =`

export function oldEngineTests(title: string, scenario: UpgradeScenario): void {
  void test(`sqlite: ${title}`, async () => {
    const dir = await makeTempDir()
    const store = createSqliteStore({ path: dir.file('cairn.db') })
    try {
      await store.open()
      const db = connectionOfStore.get(store) as DatabaseSync
      await scenario(store, async (runId) => {
        db.prepare(`UPDATE cairn_runs ${OLD_SUSPEND} ?`).run(runId)
      })
    } finally {
      await store.close()
      await dir.remove()
    }
  })
  pgTest(`postgres: ${title}`, async () => {
    const made = storeInFreshSchema()
    const pool = (store: StateStore) => postgresPools.get(store) as SqlPool
    await onServer(made, scenario, pool, `"${made.schema}".cairn_runs`, '$1')
  })
  mysqlTest(`mysql: ${title}`, async () => {
    const made = storeInFreshDatabase()
    const pool = (store: StateStore) => mysqlPools.get(store) as SqlPool
    await onServer(made, scenario, pool, `\`${made.database}\`.cairn_runs`, '?')
  })
}

/** The old engine's suspend on a server store, through the store's own pool. */
async function onServer(
  made: { store: StateStore; cleanup(): Promise<void> },
  scenario: UpgradeScenario,
  pool: (store: StateStore) => SqlPool,
  table: string,
  placeholder: string,
): Promise<void> {
  const { store, cleanup } = made
  try {
    await store.open()
    await scenario(store, async (runId) => {
      await pool(store).query({
        text: `UPDATE ${table} ${OLD_SUSPEND} ${placeholder}`,
        values: [runId],
      })
    })
  } finally {
    await store.close()
    await cleanup()
  }
}
