/**
 * The Postgres server the Postgres rows measure against, on the repository's one set of
 * service facts (tests/helpers/services.ts: URL from CAIRN_PG_URL, start command, probe): an
 * unreachable server is skipped loudly — or an error when the rows were asked for by name, or
 * under CI=true / CAIRN_REQUIRE_SERVICES=1.
 */
import pg from 'pg'
import { PG_URL, probe, servicesRequired, START_COMMANDS } from '../tests/helpers/services.ts'

export { PG_URL }

/** The URL of database `name` on the same server as PG_URL. */
export function databaseUrl(name: string): string {
  const url = new URL(PG_URL)
  url.pathname = `/${name}`
  return url.toString()
}

/** Whether Postgres answers; throws when `required` or under CI, else prints one loud line. */
export async function postgresAvailable(required: boolean): Promise<boolean> {
  const problem = await probe('postgres')
  if (problem === null) return true
  const message = `postgres at ${PG_URL} is unreachable (${problem}); start it with: ${START_COMMANDS.postgres}`
  if (required || servicesRequired()) throw new Error(message)
  console.warn(`\n!!! SKIPPING POSTGRES BENCH ROWS: ${message}\n`)
  return false
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
