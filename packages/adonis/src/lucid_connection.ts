/**
 * A Lucid connection's database settings, as the db transport's drivers take them: the
 * transport opens its own connections (a worker process must not need Lucid's pool, and the
 * transport's LISTEN connection cannot come from a pool), to the same database.
 */
/// <reference types="@adonisjs/lucid/database_provider" />
import type { ApplicationService } from '@adonisjs/core/types'
import { InvalidArgumentError } from '@cairn/core'

export type LucidSettings =
  | { dialect: 'postgres'; driver: { connectionString: string } | { connection: object } }
  | { dialect: 'mysql'; driver: { uri: string } | { connection: object } }
  | { dialect: 'sqlite'; path: string }

const POSTGRES = new Set(['pg', 'postgres', 'postgresql'])
const MYSQL = new Set(['mysql', 'mysql2'])
const SQLITE = new Set(['sqlite3', 'better-sqlite3', 'sqlite'])

export async function lucidConnectionSettings(
  app: ApplicationService,
  name: string | undefined,
): Promise<LucidSettings> {
  if (!app.container.hasBinding('lucid.db'))
    throw new InvalidArgumentError(
      'needs the @adonisjs/lucid database provider in adonisrc.ts providers',
    )
  const db = await app.container.make('lucid.db')
  const connection = name ?? db.primaryConnectionName
  const entry = db.manager.get(connection)
  if (entry === undefined) {
    const known = [...db.manager.connections.keys()].join(', ')
    throw new InvalidArgumentError(
      `connection ${JSON.stringify(connection)} is not a Lucid connection (config/database.ts has: ${known})`,
    )
  }
  const config = entry.config as { client?: unknown; connection?: unknown }
  const client = String(config.client)
  const settings = config.connection
  if (POSTGRES.has(client))
    return {
      dialect: 'postgres',
      driver:
        typeof settings === 'string'
          ? { connectionString: settings }
          : { connection: plain(settings) },
    }
  if (MYSQL.has(client))
    return {
      dialect: 'mysql',
      driver: typeof settings === 'string' ? { uri: settings } : { connection: plain(settings) },
    }
  if (SQLITE.has(client)) {
    const filename = (settings as { filename?: unknown } | undefined)?.filename
    if (typeof filename !== 'string' || filename === '')
      throw new InvalidArgumentError(
        `the SQLite connection ${JSON.stringify(connection)} names no filename`,
      )
    return { dialect: 'sqlite', path: filename }
  }
  throw new InvalidArgumentError(
    `the db transport runs on Postgres, MySQL/MariaDB and SQLite; connection ${JSON.stringify(connection)} uses ${client}`,
  )
}

/** The connection object's own settings, as a plain object (Lucid may hand a class instance). */
function plain(settings: unknown): object {
  if (settings === null || typeof settings !== 'object')
    throw new InvalidArgumentError('the Lucid connection has no connection settings')
  return { ...(settings as object) }
}
