/** Everything a Postgres store is made of, from its options or from a pool set up elsewhere. */
import type { ClientConfig } from 'pg'
import type { SqlStoreParts } from '../shared/sql_store.ts'
import { qualifiedTables } from '../shared/tables.ts'
import { postgresClaims } from './claim_writer.ts'
import { postgresDialect } from './dialect.ts'
import { postgresBatchClaims } from './event_batch_claims.ts'
import { migrations } from './migrations/index.ts'
import { resolveOptions, type PostgresStoreOptions } from './options.ts'
import type { PgPool } from './pg_pool.ts'
import { setUpPool } from './pool_setup.ts'
import { wakeChannel } from './wake_channel.ts'
import { postgresScheduleClaims } from './schedule_claims.ts'
import { PostgresWaveWriter } from './wave_writer.ts'

export interface PostgresSetup {
  parts: SqlStoreParts
  /**
   * Settings for the wake-up listener's own connection, read each time a watcher starts (a
   * Knex instance may only know them once it has connected).
   */
  listenerConfig: () => ClientConfig
  channel: string
}

export function postgresSetup(options: PostgresStoreOptions): PostgresSetup {
  const resolved = resolveOptions(options)
  const { pool, clientConfig } = setUpPool(resolved)
  return postgresOnPool(pool, resolved.schema, () => clientConfig)
}

/** The store's parts over a driver already set up; `schema` must be valid (options.ts). */
export function postgresOnPool(
  pool: PgPool,
  schema: string,
  listenerConfig: () => ClientConfig,
): PostgresSetup {
  const tables = qualifiedTables(postgresDialect, schema)
  const channel = wakeChannel(schema)
  pool.refreshPlansAsGrows(tables.runs)
  const parts: SqlStoreParts = {
    kind: 'postgres',
    pool,
    dialect: postgresDialect,
    tables,
    writer: new PostgresWaveWriter(tables, channel),
    claims: postgresClaims,
    batchClaims: postgresBatchClaims,
    scheduleClaims: postgresScheduleClaims,
    migrations,
    // Delivered on commit, like the NOTIFY of a batch (wave_statement.ts): same channel, payload.
    wakeStatement: (at) => ({ text: 'SELECT pg_notify($1, $2)', values: [channel, String(at)] }),
  }
  return { parts, listenerConfig, channel }
}
