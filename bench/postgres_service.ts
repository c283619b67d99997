/**
 * The Postgres server the Postgres rows measure against, with the tests' rules: the URL from
 * CAIRN_PG_URL, and an unreachable server is skipped loudly — or an error under CI=true /
 * CAIRN_REQUIRE_SERVICES=1. (Self-contained rather than importing tests/helpers: bench must
 * not break when test helpers move.)
 */
import pg from 'pg'

export const PG_URL = process.env.CAIRN_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'

const START = 'pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start'

/** The URL of database `name` on the same server as PG_URL. */
export function databaseUrl(name: string): string {
  const url = new URL(PG_URL)
  url.pathname = `/${name}`
  return url.toString()
}

/**
 * Whether Postgres answers. If not: throws when `required` (rows asked for by name) or under
 * CI, else prints one loud line naming the service and returns false.
 */
export async function postgresAvailable(required: boolean): Promise<boolean> {
  const problem = await probe()
  if (problem === null) return true
  const message = `postgres at ${PG_URL} is unreachable (${problem}); start it with: ${START}`
  const ci = process.env.CI === 'true' || process.env.CAIRN_REQUIRE_SERVICES === '1'
  if (required || ci) throw new Error(message)
  console.warn(`\n!!! SKIPPING POSTGRES BENCH ROWS: ${message}\n`)
  return false
}

/** null when reachable, else why not. */
async function probe(): Promise<string | null> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 2_000 })
  try {
    await client.connect()
    await client.query('SELECT 1')
    return null
  } catch (error) {
    return String(error)
  } finally {
    await client.end().catch(() => {})
  }
}

/** Runs `fn` with one short-lived connection to the server's PG_URL database. */
export function withAdminClient<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  return withClient(PG_URL, fn)
}

/** Runs `fn` with one short-lived connection to `url`. */
export async function withClient<T>(
  url: string,
  fn: (client: pg.Client) => Promise<T>,
): Promise<T> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await fn(client)
  } finally {
    await client.end()
  }
}

/**
 * Runs `fn` with a fresh, empty schema on the PG_URL database, dropped afterwards: a row's
 * tables never see another run's rows, and runs leave nothing behind.
 */
export async function withScratchSchema<T>(
  prefix: string,
  fn: (schema: string) => Promise<T>,
): Promise<T> {
  const schema = `${prefix}_${process.pid}`
  await withAdminClient((c) =>
    c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE; CREATE SCHEMA ${schema}`),
  )
  try {
    return await fn(schema)
  } finally {
    await withAdminClient((c) => c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`))
  }
}
