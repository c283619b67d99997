/**
 * The MySQL/MariaDB the tests run against (CAIRN_MYSQL_URL, default the local MariaDB) and
 * per-test isolation: each test gets a database of its own, with a random name, dropped
 * afterwards, so tests run in parallel on one server without seeing each other.
 */
import { randomBytes } from 'node:crypto'
import mysql from 'mysql2/promise'
import type { StoreFactory } from '@cairn/conformance'
import type { StateStore } from '@cairn/core/contracts'
import { createMysqlStore, type MysqlStore, type MysqlStoreOptions } from '@cairn/sql/mysql'
import { MYSQL_URL } from '../../../../tests/helpers/services.ts'
import { testsNeeding } from './services.ts'

export { MYSQL_URL }

/** `test` for tests needing MySQL/MariaDB: one skip (or, in CI, one failure) when it is down. */
export const mysqlTest = await testsNeeding('mysql', 'MySQL/MariaDB', MYSQL_URL)

export function randomDatabase(): string {
  return `cairn_test_${randomBytes(6).toString('hex')}`
}

/** Runs `sql` on a short-lived connection of its own (admin work: drop a database, KILL). */
export async function adminQuery(sql: string, values: unknown[] = []): Promise<unknown[][]> {
  const connection = await mysql.createConnection({ uri: MYSQL_URL, supportBigNumbers: true })
  connection.on('error', () => undefined)
  try {
    const [rows] = await connection.query({ sql, rowsAsArray: true }, values)
    return Array.isArray(rows) ? (rows as unknown[][]) : []
  } finally {
    await connection.end()
  }
}

export async function dropDatabase(database: string): Promise<void> {
  await adminQuery(`DROP DATABASE IF EXISTS \`${database}\``)
}

type MakeStore<S> = (options: MysqlStoreOptions) => S

/** A store in a fresh database, and the cleanup dropping it. */
export function storeInFreshDatabase<S = MysqlStore>(
  options: Partial<MysqlStoreOptions> = {},
  make: MakeStore<S> = createMysqlStore as MakeStore<S>,
): { store: S; database: string; cleanup(): Promise<void> } {
  const database = randomDatabase()
  const store = make({ ...(options.pool ? {} : { uri: MYSQL_URL }), ...options, database })
  return { store, database, cleanup: () => dropDatabase(database) }
}

/** The conformance factory: a fresh database per test. */
export function conformanceFactory(
  name: string,
  options: () => Partial<MysqlStoreOptions> = () => ({}),
  make: MakeStore<StateStore> = createMysqlStore,
): StoreFactory {
  return {
    name,
    create: async () => {
      const { store, cleanup } = storeInFreshDatabase(options(), make)
      return { store, cleanup }
    },
  }
}
