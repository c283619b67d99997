/**
 * The Postgres store on a Knex instance's connections (loaded only for a Knex on `pg`). The
 * wake-up listener needs a connection of its own (a LISTEN must outlive any one call), so it
 * opens one with the settings Knex connects with, outside Knex's pool.
 */
import { StoreFailureError } from '@cairn/core'
import type { ClientConfig } from 'pg'
import { validateSchema } from '../postgres/options.ts'
import { PgPool } from '../postgres/pg_pool.ts'
import { PostgresSqlStore } from '../postgres/postgres_store.ts'
import { postgresOnPool } from '../postgres/store_setup.ts'
import type { KnexClient } from './knex_client.ts'
import { KnexPgPool } from './knex_pg_pool.ts'
import type { KnexStoreOptions } from './options.ts'

export function knexPostgresStore(knex: KnexClient, options: KnexStoreOptions): PostgresSqlStore {
  const schema = options.schema ?? 'public'
  validateSchema(schema)
  const pool = new PgPool(new KnexPgPool(knex), false)
  return new PostgresSqlStore(postgresOnPool(pool, schema, () => listenerConfig(knex)))
}

/**
 * Read when a watcher starts: with `connection` given as a function, Knex knows its settings
 * only once it has connected (open() has). Over an external `connectionPool` Knex has none of
 * its own, and a pg.Pool keeps its settings as `options`. Without any, watchClaimable rejects
 * and engines poll.
 */
function listenerConfig(knex: KnexClient): ClientConfig {
  const settings = knex.connectionSettings
  if (typeof settings === 'string' && settings !== '') return { connectionString: settings }
  const config =
    settingsObject(settings) ??
    settingsObject((knex.config.connectionPool as { options?: unknown } | undefined)?.options)
  if (config !== null) return config
  throw new StoreFailureError(
    'postgres store: the Knex instance has no connection settings to open the wake-up listener with (engines poll instead)',
    { details: { operation: 'watchClaimable' } },
  )
}

/** A copy, with the password Knex keeps non-enumerable (a spread would drop it). */
function settingsObject(value: unknown): ClientConfig | null {
  if (value === null || typeof value !== 'object' || Object.keys(value).length === 0) return null
  const { password } = value as { password?: ClientConfig['password'] }
  return { ...value, ...(password === undefined ? {} : { password }) }
}
