/**
 * The MySQL/MariaDB store on a Knex instance's connections (loaded only for a Knex on
 * `mysql2`). Their sessions are the application's and stay as they are; each of the store's
 * transactions is set to READ COMMITTED just before it starts (mysql/session_setup.ts says
 * why the store wants it).
 */
import { SqlStore } from '../shared/sql_store.ts'
import { MysqlPool } from '../mysql/mysql_pool.ts'
import { uriDatabase, validateDatabase } from '../mysql/options.ts'
import { mysqlOnPool } from '../mysql/store_setup.ts'
import type { KnexClient } from './knex_client.ts'
import { KnexMysqlPool } from './knex_mysql_pool.ts'
import type { KnexStoreOptions } from './options.ts'

export function knexMysqlStore(knex: KnexClient, options: KnexStoreOptions): SqlStore {
  const database = options.database ?? knexDatabase(knex.connectionSettings)
  validateDatabase(database)
  const pool = new MysqlPool(new KnexMysqlPool(knex), {
    owned: false,
    session: null,
    readCommittedTransactions: true,
  })
  return new SqlStore(mysqlOnPool(pool, database))
}

/** The database Knex connects to: its `connection` option as an object or a URL. */
function knexDatabase(settings: unknown): string | undefined {
  if (typeof settings === 'string')
    return URL.canParse(settings) ? uriDatabase(settings) : undefined
  const database = (settings as { database?: unknown } | null | undefined)?.database
  return typeof database === 'string' ? database : undefined
}
