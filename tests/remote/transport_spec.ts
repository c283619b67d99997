/**
 * Which transport a remote-step fault test runs over, as JSON a child process (worker or engine)
 * is handed on its command line: BullMQ under a key prefix of its own, or the db transport in
 * the store's own database (its Postgres schema, MariaDB database or SQLite file).
 */
import type { EngineTransport, WorkerTransport } from '@cairn/core/contracts'
import type { StoreLocation } from '../helpers/stores.ts'
import { MYSQL_URL, PG_URL, REDIS_URL } from '../helpers/services.ts'

export type TransportKind = 'bullmq' | 'db' | 'queue'

export type TransportSpec =
  | { kind: 'bullmq'; url: string; prefix: string }
  | { kind: 'db'; location: StoreLocation }
  | QueueSpec

/**
 * The @adonisjs/queue transport: over @boringnode/queue's Redis adapter beside a Postgres store,
 * and over its Knex adapter in the MariaDB store's own database (a jobs table of its own).
 */
type QueueSpec =
  | { kind: 'queue'; adapter: 'redis'; url: string; prefix: string }
  | { kind: 'queue'; adapter: 'mysql'; database: string; table: string }

export interface TransportPair {
  engine(): EngineTransport
  worker(): WorkerTransport
}

/** The spec for `kind` beside a store at `location`; `cleanup` removes what it made. */
export async function specFor(
  kind: TransportKind,
  location: StoreLocation | undefined,
): Promise<{ spec: TransportSpec; cleanup(): Promise<void> }> {
  if (kind === 'db') {
    if (location === undefined) throw new Error('the db transport needs a SQL store')
    return { spec: { kind, location }, cleanup: async () => {} }
  }
  const { dropPrefix, uniquePrefix } = await import('../../packages/bullmq/test/redis_fixture.ts')
  if (kind === 'queue' && location?.dialect === 'mysql') return queueTableBeside(location.database)
  const prefix = uniquePrefix()
  const spec: TransportSpec =
    kind === 'queue'
      ? { kind, adapter: 'redis', url: REDIS_URL, prefix }
      : { kind, url: REDIS_URL, prefix }
  return { spec, cleanup: () => dropPrefix(prefix) }
}

/** A @boringnode/queue jobs table in the MariaDB test database, dropped by `cleanup`. */
async function queueTableBeside(
  database: string,
): Promise<{ spec: TransportSpec; cleanup(): Promise<void> }> {
  const { QueueSchemaService } = await import('@boringnode/queue')
  const { default: knex } = await import('knex')
  const table = `cairn_queue_jobs`
  // Made before the store's first open would make it (the store's cleanup drops it).
  const server = knex({ client: 'mysql2', connection: MYSQL_URL })
  try {
    await server.raw('CREATE DATABASE IF NOT EXISTS ??', [database])
  } finally {
    await server.destroy()
  }
  const db = knex({ client: 'mysql2', connection: mysqlUrl(database) })
  try {
    await new QueueSchemaService(db).createJobsTable(table)
  } finally {
    await db.destroy()
  }
  // The table lives in the test's own database, which the store's cleanup drops.
  return { spec: { kind: 'queue', adapter: 'mysql', database, table }, cleanup: async () => {} }
}

function mysqlUrl(database: string): string {
  const url = new URL(MYSQL_URL)
  url.pathname = `/${database}`
  return url.toString()
}

interface MysqlCallbackConnection {
  query(sql: string, callback: (error: unknown) => void): void
}

async function queueTransportOf(spec: QueueSpec): Promise<TransportPair> {
  const { queueTransport } = await import('@cairn/queue')
  const tuning = { stalledIntervalMs: 250, pollIntervalMs: 50, redeliverAfterMs: 200 }
  if (spec.adapter === 'redis') {
    const { redisAdapterAt } = await import('../../packages/queue/test/adapters.ts')
    return queueTransport({ adapter: redisAdapterAt(spec.url, spec.prefix), ...tuning })
  }
  const { knex } = await import('@boringnode/queue/drivers/knex_adapter')
  // As docs/queue-transport.md asks of a MariaDB adapter: the server ends a transaction left
  // idle (a worker frozen inside its pop would otherwise hold that job's row until it resumes).
  const pool = {
    afterCreate: (conn: MysqlCallbackConnection, done: (error: unknown, conn: unknown) => void) =>
      conn.query('SET SESSION idle_transaction_timeout = 5', (error) => done(error, conn)),
  }
  const adapter = knex({ client: 'mysql2', connection: mysqlUrl(spec.database), pool }, spec.table)
  return queueTransport({ adapter, ...tuning })
}

/** Both halves of the transport a spec names, tuned for quick fault tests. */
export async function transportOf(spec: TransportSpec): Promise<TransportPair> {
  if (spec.kind === 'queue') return queueTransportOf(spec)
  if (spec.kind === 'bullmq') {
    const { bullmqTransport } = await import('@cairn/bullmq')
    return bullmqTransport({
      connection: spec.url,
      prefix: spec.prefix,
      stalledIntervalMs: 250,
      pollIntervalMs: 200,
    })
  }
  const { mysqlTransport, postgresTransport, sqliteTransport } =
    await import('@cairn/sql/transport')
  const tuning = { pollIntervalMs: 100, redeliverAfterMs: 200 }
  const where = spec.location
  if (where.dialect === 'postgres')
    return postgresTransport({ connectionString: PG_URL, schema: where.schema, ...tuning })
  if (where.dialect === 'mysql')
    return mysqlTransport({ uri: MYSQL_URL, database: where.database, ...tuning })
  return sqliteTransport({ path: where.path, ...tuning })
}

/**
 * The fault tests' combinations: every store on BullMQ, each on its own db transport, and the
 * @adonisjs/queue transport on Postgres (its Redis adapter) and MariaDB (its database adapter).
 */
export const FLEET_CASES: { store: 'postgres' | 'mysql' | 'sqlite'; transport: TransportKind }[] = [
  { store: 'postgres', transport: 'bullmq' },
  { store: 'mysql', transport: 'bullmq' },
  { store: 'postgres', transport: 'db' },
  { store: 'mysql', transport: 'db' },
  { store: 'sqlite', transport: 'db' },
  { store: 'postgres', transport: 'queue' },
  { store: 'mysql', transport: 'queue' },
]
