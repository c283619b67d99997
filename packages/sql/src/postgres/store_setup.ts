/** Everything a Postgres store is made of, from its options. */
import type { ClientConfig } from 'pg'
import type { SqlStoreParts } from '../shared/sql_store.ts'
import { qualifiedTables } from '../shared/tables.ts'
import { postgresClaims } from './claim_writer.ts'
import { postgresDialect } from './dialect.ts'
import { migrations } from './migrations/index.ts'
import { resolveOptions, type PostgresStoreOptions } from './options.ts'
import { setUpPool } from './pool_setup.ts'
import { wakeChannel } from './wake_channel.ts'
import { PostgresWaveWriter } from './wave_writer.ts'

export interface PostgresSetup {
  parts: SqlStoreParts
  /** Settings for the wake-up listener's own connection. */
  clientConfig: ClientConfig
  channel: string
}

export function postgresSetup(options: PostgresStoreOptions): PostgresSetup {
  const resolved = resolveOptions(options)
  const { pool, clientConfig } = setUpPool(resolved)
  const tables = qualifiedTables(postgresDialect, resolved.schema)
  const channel = wakeChannel(resolved.schema)
  const parts: SqlStoreParts = {
    kind: 'postgres',
    pool,
    dialect: postgresDialect,
    tables,
    writer: new PostgresWaveWriter(tables, channel),
    claims: postgresClaims,
    migrations,
  }
  return { parts, clientConfig, channel }
}
