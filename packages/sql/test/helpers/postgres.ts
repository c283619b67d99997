/**
 * The Postgres the tests run against (CAIRN_PG_URL, default the local cluster) and
 * per-test isolation: each test gets a schema of its own, with a random name, dropped
 * (CASCADE) afterwards, so tests run in parallel on one database without seeing each other.
 */
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import type { StoreFactory } from '@cairn/conformance'
import type { StateStore } from '@cairn/core/contracts'
import { createPostgresStore, type PostgresStore } from '@cairn/sql/postgres'
import type { PostgresStoreOptions } from '@cairn/sql/postgres'
import { PG_URL } from '../../../../tests/helpers/services.ts'
import { testsNeeding } from './services.ts'

export { PG_URL }

/** `test` for tests needing Postgres: one skip (or, in CI, one failure) when it is down. */
export const pgTest = await testsNeeding('postgres', 'Postgres', PG_URL)

export function randomSchema(): string {
  return `cairn_test_${randomBytes(6).toString('hex')}`
}

/** Runs `sql` on a short-lived connection of its own (admin work: drop a schema, kill a backend). */
export async function adminQuery(sql: string, values: unknown[] = []): Promise<unknown[][]> {
  const client = new pg.Client({ connectionString: PG_URL })
  client.on('error', () => undefined)
  await client.connect()
  try {
    return (await client.query({ text: sql, values, rowMode: 'array' })).rows
  } finally {
    await client.end()
  }
}

/** Terminates the backend of `tag` (its application_name) once it matches `condition` (SQL over pg_stat_activity). */
export async function terminateWhen(tag: string, condition: string): Promise<void> {
  for (let tries = 0; tries < 250; tries++) {
    const rows = await adminQuery(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND ${condition}`,
      [tag],
    )
    if (rows.length > 0) return
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  throw new Error(`no backend of ${tag} matched ${condition}`)
}

/** Until a statement on `schema`'s tables waits for a lock (another session holds it). */
export async function untilWaitingForLock(schema: string): Promise<void> {
  for (let tries = 0; tries < 500; tries++) {
    const rows = await adminQuery(
      `SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND position($1 in query) > 0`,
      [schema],
    )
    if (rows.length > 0) return
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  throw new Error('no statement waited for a lock')
}

export async function dropSchema(schema: string): Promise<void> {
  await adminQuery(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
}

type MakeStore<S> = (options: PostgresStoreOptions) => S

/** A store in a fresh schema, and the cleanup dropping it. */
export function storeInFreshSchema<S = PostgresStore>(
  options: Partial<PostgresStoreOptions> = {},
  make: MakeStore<S> = createPostgresStore as MakeStore<S>,
): {
  store: S
  schema: string
  cleanup(): Promise<void>
} {
  const schema = randomSchema()
  const store = make({
    ...(options.pool ? {} : { connectionString: PG_URL }),
    ...options,
    schema,
  })
  return { store, schema, cleanup: () => dropSchema(schema) }
}

/** The conformance factory: a fresh schema per test. */
export function conformanceFactory(
  name: string,
  options: () => Partial<PostgresStoreOptions> = () => ({}),
  make: MakeStore<StateStore> = createPostgresStore,
): StoreFactory {
  return {
    name,
    create: async () => {
      const { store, cleanup } = storeInFreshSchema(options(), make)
      return { store, cleanup }
    },
  }
}
