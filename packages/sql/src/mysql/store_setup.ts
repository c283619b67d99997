/** Everything a MySQL/MariaDB store is made of, from its options or from a pool set up elsewhere. */
import { lockedBatchClaims } from '../shared/locked_batch_claims.ts'
import { lockedClaims } from '../shared/locked_claims.ts'
import { lockedScheduleClaims } from '../shared/locked_schedule_claims.ts'
import { LockedWaveWriter } from '../shared/locked_wave_writer.ts'
import type { SqlStoreParts } from '../shared/sql_store.ts'
import { qualifiedTables } from '../shared/tables.ts'
import { mysqlDialect } from './dialect.ts'
import { migrations } from './migrations/index.ts'
import { isDuplicateKey } from './mysql_errors.ts'
import { StatementTooLarge } from './statement_text.ts'
import type { MysqlPool } from './mysql_pool.ts'
import { resolveOptions, type MysqlStoreOptions } from './options.ts'
import { setUpPool } from './pool_setup.ts'

export function mysqlSetup(options: MysqlStoreOptions): SqlStoreParts {
  const resolved = resolveOptions(options)
  return mysqlOnPool(setUpPool(resolved), resolved.database)
}

/**
 * The portable writers of shared/: MySQL has no RETURNING on UPDATE and no data-modifying
 * CTEs, so a wave is a locking read of its runs (and of its checkpoints, only when a save
 * meets a stored one), decisions in JavaScript, and
 * one fenced multi-row write per kind (locked_wave_writer.ts); a claim (of runs, of event
 * accumulators or of schedules) is a SKIP LOCKED locking read and an UPDATE by key
 * (locked_claims.ts, locked_batch_claims.ts, locked_schedule_claims.ts).
 *
 * Over a driver already set up; `database` must be valid (options.ts).
 */
export function mysqlOnPool(pool: MysqlPool, database: string): SqlStoreParts {
  const tables = qualifiedTables(mysqlDialect, database)
  const context = { pool, dialect: mysqlDialect, tables }
  return {
    ...context,
    kind: 'mysql',
    // A failed statement is undone alone, the transaction kept: saves skip the checkpoint read.
    writer: new LockedWaveWriter(context, readFirstAfter),
    claims: lockedClaims,
    batchClaims: lockedBatchClaims,
    scheduleClaims: lockedScheduleClaims,
    migrations,
  }
}

/**
 * When a wave's saves go back to being decided on a read of their checkpoints: one of them was
 * stored (duplicate key), or the one INSERT carrying them all was refused before it was sent —
 * read first, they go out as smaller statements (new saves, overwrites; conflicts not at all).
 */
function readFirstAfter(error: unknown): boolean {
  return isDuplicateKey(error) || error instanceof StatementTooLarge
}
