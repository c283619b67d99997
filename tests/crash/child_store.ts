/**
 * The store a fault-test child process opens, from its environment: CRASH_DB (a SQLite file),
 * or CRASH_PG_URL + CRASH_PG_SCHEMA (Postgres), or CRASH_MYSQL_URL + CRASH_MYSQL_DB
 * (MySQL/MariaDB), as server_sites.ts hands them out; CRASH_POOL_MAX sizes a server pool, and
 * CRASH_IDLE_TX_S sets a server store's idle-in-transaction timeout (a process paused
 * mid-transaction loses its connection after that long, and its row locks with it).
 */
import type { StateStore } from '@cairn/core'
import { SqliteStore } from '@cairn/sql/sqlite'

export async function openStore(): Promise<StateStore> {
  const env = process.env
  const idleSeconds = env.CRASH_IDLE_TX_S === undefined ? undefined : Number(env.CRASH_IDLE_TX_S)
  if (env.CRASH_MYSQL_DB !== undefined) {
    const { MysqlStore } = await import('@cairn/sql/mysql')
    const max = Number(env.CRASH_POOL_MAX ?? 5)
    return new MysqlStore({
      uri: env.CRASH_MYSQL_URL as string,
      database: env.CRASH_MYSQL_DB,
      max,
      ...(idleSeconds === undefined ? {} : { idleTransactionTimeoutS: idleSeconds }),
    })
  }
  if (env.CRASH_PG_SCHEMA === undefined) return new SqliteStore({ path: env.CRASH_DB as string })
  const { PostgresStore } = await import('@cairn/sql/postgres')
  return new PostgresStore({
    connectionString: env.CRASH_PG_URL as string,
    schema: env.CRASH_PG_SCHEMA,
    max: Number(env.CRASH_POOL_MAX ?? 5),
    ...(idleSeconds === undefined ? {} : { idleTransactionTimeoutMs: idleSeconds * 1_000 }),
  })
}
