/**
 * Which store a Knex instance gets, from the driver its connections come from (Knex's
 * `driverName`: the `client` option with its aliases resolved, `postgres` → `pg`). Drivers
 * other than these three are refused with the reason, before anything is opened.
 */
import { InvalidArgumentError } from '@cairn/core'
import type { KnexClient } from './knex_client.ts'

export type KnexDialect = 'postgres' | 'mysql' | 'sqlite'

const DIALECTS: Readonly<Record<string, KnexDialect>> = {
  pg: 'postgres',
  mysql2: 'mysql',
  'better-sqlite3': 'sqlite',
}

const SUPPORTED = 'pg (Postgres), mysql2 (MySQL/MariaDB) or better-sqlite3 (SQLite)'

/** Why a driver Knex offers is not among them. */
const REASONS: Readonly<Record<string, string>> = {
  sqlite3:
    'its API is asynchronous only, and the SQLite store runs each call as one synchronous transaction: use better-sqlite3',
  mysql: 'the MySQL store relies on mysql2 (rows as arrays, exact BIGINTs): use mysql2',
  mariadb: 'the MySQL store relies on mysql2, which also serves MariaDB: use mysql2',
  pgnative: 'use pg, the JavaScript driver',
}

export interface KnexTarget {
  client: KnexClient
  dialect: KnexDialect
  /** The driver's name, for messages. */
  driver: string
}

export function knexTarget(knex: unknown): KnexTarget {
  const client = (knex as { client?: unknown } | null)?.client as KnexClient | undefined
  if (typeof client?.acquireConnection !== 'function') {
    throw new InvalidArgumentError('knex store: expected a Knex instance (knex({ client, … }))')
  }
  if ((knex as { isTransaction?: unknown }).isTransaction === true) {
    throw new InvalidArgumentError(
      'knex store: give the Knex instance, not a transaction: the store runs its own transactions on connections it borrows',
    )
  }
  const driver = driverOf(client)
  const dialect = Object.hasOwn(DIALECTS, driver) ? DIALECTS[driver] : undefined
  if (dialect === undefined) {
    const reason = Object.hasOwn(REASONS, driver) ? `: ${REASONS[driver]}` : ''
    throw new InvalidArgumentError(
      `knex store: the Knex client ${JSON.stringify(driver)} is not supported${reason} (supported: ${SUPPORTED})`,
      { details: { client: driver } },
    )
  }
  return { client, dialect, driver }
}

function driverOf(client: KnexClient): string {
  if (typeof client.driverName === 'string') return client.driverName
  const configured = client.config?.client
  return typeof configured === 'string' ? configured : String(configured)
}
