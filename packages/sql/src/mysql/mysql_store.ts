/**
 * StateStore on MySQL 8 / MariaDB 10.6+ through mysql2: the shared SQL store
 * (shared/sql_store.ts) with the MySQL dialect, driver and migrations, and the portable
 * lock-decide-write writers. No push wake-ups (watchClaimable): engines poll with back-off.
 * See docs/mysql.md.
 */
import { SqlStore } from '../shared/sql_store.ts'
import { poolOfStore } from './debug_access.ts'
import type { MysqlStoreOptions } from './options.ts'
import { mysqlSetup } from './store_setup.ts'

export class MysqlStore extends SqlStore {
  declare readonly kind: 'mysql'

  constructor(options: MysqlStoreOptions) {
    const parts = mysqlSetup(options)
    super(parts)
    poolOfStore.set(this, parts.pool)
  }
}

export function createMysqlStore(options: MysqlStoreOptions): MysqlStore {
  return new MysqlStore(options)
}
