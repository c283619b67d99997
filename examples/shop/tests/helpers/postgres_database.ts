/**
 * A Postgres database of its own for one test (created empty, dropped afterwards), and the
 * shop's PG_* variables pointing at it. The server is the project's test Postgres
 * (CAIRN_PG_URL; see tests/helpers/services.ts).
 */
import { randomBytes } from 'node:crypto'
import type { TestContext } from 'node:test'
import pg from 'pg'
import { PG_URL } from '../../../../tests/helpers/services.ts'

export async function freshPostgresDatabase(t: TestContext): Promise<Record<string, string>> {
  const name = `cairn_shop_${randomBytes(6).toString('hex')}`
  await admin(`CREATE DATABASE ${name}`)
  // FORCE: a server killed with SIGKILL may leave its sessions behind for a moment.
  t.after(() => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))
  const url = new URL(PG_URL)
  return {
    DB_CONNECTION: 'pg',
    PG_HOST: url.hostname,
    PG_PORT: url.port || '5432',
    PG_USER: decodeURIComponent(url.username),
    PG_PASSWORD: decodeURIComponent(url.password),
    PG_DB_NAME: name,
  }
}

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL })
  await client.connect()
  try {
    await client.query(sql)
  } finally {
    await client.end()
  }
}
