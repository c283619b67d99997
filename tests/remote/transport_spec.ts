/**
 * Which transport a remote-step fault test runs over, as JSON a child process (worker or engine)
 * is handed on its command line: BullMQ under a key prefix of its own, or the db transport in
 * the store's own database (its Postgres schema, MariaDB database or SQLite file).
 */
import type { EngineTransport, WorkerTransport } from '@cairn/core/contracts'
import type { StoreLocation } from '../helpers/stores.ts'
import { MYSQL_URL, PG_URL, REDIS_URL } from '../helpers/services.ts'

export type TransportKind = 'bullmq' | 'db'

export type TransportSpec =
  { kind: 'bullmq'; url: string; prefix: string } | { kind: 'db'; location: StoreLocation }

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
  const prefix = uniquePrefix()
  return { spec: { kind, url: REDIS_URL, prefix }, cleanup: () => dropPrefix(prefix) }
}

/** Both halves of the transport a spec names, tuned for quick fault tests. */
export async function transportOf(spec: TransportSpec): Promise<TransportPair> {
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

/** The fault tests' combinations: every store on BullMQ, and each on its own db transport. */
export const FLEET_CASES: { store: 'postgres' | 'mysql' | 'sqlite'; transport: TransportKind }[] = [
  { store: 'postgres', transport: 'bullmq' },
  { store: 'mysql', transport: 'bullmq' },
  { store: 'postgres', transport: 'db' },
  { store: 'mysql', transport: 'db' },
  { store: 'sqlite', transport: 'db' },
]
