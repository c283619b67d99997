/**
 * A private place on a real server for one process-level fault test: a Postgres schema or a
 * MariaDB database, how an engine child process opens it, a store for the test's own client,
 * and how many connections the child holds (so a test can tell a leak). Each site gets its own
 * tag, so tests run side by side, and a Postgres connection or a MariaDB user names its site.
 */
import { randomBytes } from 'node:crypto'
import type { StateStore } from '@cairn/core'
import { MYSQL_URL, PG_URL } from '../helpers/services.ts'

export type ServerKind = 'postgres' | 'mysql'

export interface ServerSite {
  readonly kind: ServerKind
  /** Schema or database name, also the tag the child's connections carry. */
  readonly name: string
  /** Environment that makes tests/crash/engine_process.ts open this site. */
  childEnv(): Record<string, string>
  /** A store on the site for the test's own client engine (never the child's connections). */
  openStore(max?: number): Promise<StateStore>
  /** Connections the child processes hold to the server right now. */
  childConnections(): Promise<number>
  drop(): Promise<void>
}

export async function createSite(kind: ServerKind, prefix: string): Promise<ServerSite> {
  const name = `${prefix}_${randomBytes(5).toString('hex')}`
  return kind === 'postgres' ? postgresSite(name) : await mysqlSite(name)
}

function postgresSite(name: string): ServerSite {
  return {
    kind: 'postgres',
    name,
    childEnv: () => ({
      CRASH_PG_URL: withParam(PG_URL, 'application_name', name),
      CRASH_PG_SCHEMA: name,
    }),
    openStore: async (max = 2) => {
      const { PostgresStore } = await import('@cairn/sql/postgres')
      return new PostgresStore({ connectionString: PG_URL, schema: name, max })
    },
    childConnections: async () => {
      const rows = await pgQuery(
        'SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1',
        [name],
      )
      return (rows[0] as { n: number }).n
    },
    drop: async () => void (await pgQuery(`DROP SCHEMA IF EXISTS "${name}" CASCADE`)),
  }
}

/** The child logs in as a user of its own, so its connections can be counted exactly. */
async function mysqlSite(name: string): Promise<ServerSite> {
  await mysqlQuery(`CREATE USER '${name}'@'%' IDENTIFIED BY '${name}'`)
  await mysqlQuery(`GRANT ALL ON \`${name}\`.* TO '${name}'@'%'`)
  const childUrl = new URL(MYSQL_URL)
  childUrl.username = name
  childUrl.password = name
  return {
    kind: 'mysql',
    name,
    childEnv: () => ({ CRASH_MYSQL_URL: childUrl.toString(), CRASH_MYSQL_DB: name }),
    openStore: async (max = 2) => {
      const { MysqlStore } = await import('@cairn/sql/mysql')
      return new MysqlStore({ uri: MYSQL_URL, database: name, max })
    },
    childConnections: async () => {
      const rows = await mysqlQuery(
        'SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE USER = ?',
        [name],
      )
      return Number((rows[0] as { n: number }).n)
    },
    drop: async () => {
      await mysqlQuery(`DROP DATABASE IF EXISTS \`${name}\``)
      await mysqlQuery(`DROP USER IF EXISTS '${name}'@'%'`)
    },
  }
}

function withParam(url: string, key: string, value: string): string {
  return `${url}${url.includes('?') ? '&' : '?'}${key}=${value}`
}

/** One statement on a fresh connection: still works after the server was restarted. */
async function pgQuery(text: string, values: unknown[] = []): Promise<unknown[]> {
  const { default: pg } = await import('pg')
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 5_000 })
  await client.connect()
  try {
    return (await client.query(text, values)).rows
  } finally {
    await client.end()
  }
}

async function mysqlQuery(text: string, values: unknown[] = []): Promise<unknown[]> {
  const mysql = await import('mysql2/promise')
  const connection = await mysql.createConnection({ uri: MYSQL_URL, connectTimeout: 5_000 })
  try {
    const [rows] = await connection.query(text, values)
    return rows as unknown[]
  } finally {
    await connection.end()
  }
}
