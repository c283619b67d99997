/**
 * Every benchmark row by name: what it is, what service it needs, how it is measured. Adding a
 * row is one entry. Measurements import their engine lazily, so bench/main.ts can read this
 * table without loading any engine.
 */
import { join } from 'node:path'
import type { StateStore } from '@cairn/core'
import { MYSQL_URL, withScratchDatabase } from './mysql_service.ts'
import { PG_URL, withScratchSchema } from './postgres_service.ts'

export interface Row {
  /**
   * 'engine' rows are Cairn on some store: compared with `raw-<name>` (vs_raw) and with the
   * dbos row (vs_dbos) when those ran too.
   */
  kind: 'engine' | 'raw' | 'other'
  /** A service the row needs: when it is down, the row leaves the default set. */
  service?: 'postgres' | 'mysql' | 'redis'
  /** Part of `npm run bench` without --store. */
  inDefault: boolean
  /** Runs in the row's own process; `dir` is a scratch directory removed afterwards. */
  measure(dir: string): Promise<object>
}

export const ROWS: Record<string, Row> = {
  memory: engineRow(async () => new (await import('@cairn/core')).MemoryStore()),
  'sqlite-full': engineRow(async (dir) => sqliteStore(dir, 'full')),
  'sqlite-normal': engineRow(async (dir) => sqliteStore(dir, 'normal')),
  'raw-sqlite-full': rawRow(async (dir) =>
    (await import('./raw_sqlite.ts')).rawSqlite(join(dir, 'raw.db'), 'FULL'),
  ),
  'raw-sqlite-normal': rawRow(async (dir) =>
    (await import('./raw_sqlite.ts')).rawSqlite(join(dir, 'raw.db'), 'NORMAL'),
  ),
  postgres: {
    kind: 'engine',
    service: 'postgres',
    inDefault: true,
    measure: () =>
      withScratchSchema('cairn_bench_pg', async (schema) => {
        const { PostgresStore } = await import('@cairn/sql/postgres')
        const { measureEngine } = await import('./engine_row.ts')
        return measureEngine(new PostgresStore({ connectionString: PG_URL, schema }))
      }),
  },
  mysql: {
    kind: 'engine',
    service: 'mysql',
    inDefault: true,
    measure: () =>
      withScratchDatabase('cairn_bench_my', async (database) => {
        const { MysqlStore } = await import('@cairn/sql/mysql')
        const { measureEngine } = await import('./engine_row.ts')
        return measureEngine(new MysqlStore({ uri: MYSQL_URL, database }))
      }),
  },
  'raw-postgres': {
    ...rawRow(async () => (await import('./raw_postgres.ts')).rawPostgres('pool')),
    service: 'postgres',
  },
  // The group-commit-loop variant of raw-postgres (one connection): on request only.
  'raw-postgres-batched': {
    ...rawRow(async () => (await import('./raw_postgres.ts')).rawPostgres('batched')),
    service: 'postgres',
    inDefault: false,
  },
  'raw-mysql': {
    ...rawRow(async () => (await import('./raw_mysql.ts')).rawMysql('pool')),
    service: 'mysql',
  },
  // The group-commit-loop variant of raw-mysql (one connection): on request only.
  'raw-mysql-batched': {
    ...rawRow(async () => (await import('./raw_mysql.ts')).rawMysql('batched')),
    service: 'mysql',
    inDefault: false,
  },
  // Remote steps (issue 14), on request:
  //   npm run bench -- --store postgres,dbos,remote-bullmq,remote-db,remote-queue,raw-bullmq
  'remote-bullmq': remoteRow('bullmq'),
  'remote-db': remoteRow('db'),
  // The @adonisjs/queue transport over @boringnode/queue's Redis adapter.
  'remote-queue': remoteRow('queue'),
  'raw-bullmq': {
    kind: 'other',
    service: 'redis',
    inDefault: false,
    measure: async () => (await import('./remote/raw_bullmq_row.ts')).measureRawBullmq(),
  },
  // Singleton admission's cost (issue 15), on request, beside its plain row in one run:
  //   npm run bench -- --store sqlite-normal,admission-sqlite-normal,postgres,admission-postgres
  'admission-sqlite-normal': {
    kind: 'other',
    inDefault: false,
    measure: async (dir) =>
      (await import('./engine_row.ts')).measureEngine(await sqliteStore(dir, 'normal'), true),
  },
  'admission-postgres': {
    kind: 'other',
    service: 'postgres',
    inDefault: false,
    measure: () =>
      withScratchSchema('cairn_bench_adm', async (schema) => {
        const { PostgresStore } = await import('@cairn/sql/postgres')
        const { measureEngine } = await import('./engine_row.ts')
        return measureEngine(new PostgresStore({ connectionString: PG_URL, schema }), true)
      }),
  },
  // A named queue as the bound (issue 15): registered steps with and without a queue of
  // concurrency 10 under 50 producers, in one run (bench/queue_row.ts).
  'steps-sqlite-normal': queueRow('steps', 'sqlite'),
  'steps10-sqlite-normal': queueRow('steps10', 'sqlite'),
  'queue-sqlite-normal': queueRow('queue', 'sqlite'),
  'queue-leased-sqlite-normal': queueRow('queue-leased', 'sqlite'),
  'steps-postgres': queueRow('steps', 'postgres'),
  'steps10-postgres': queueRow('steps10', 'postgres'),
  'queue-postgres': queueRow('queue', 'postgres'),
  'queue-leased-postgres': queueRow('queue-leased', 'postgres'),
  // A rate-limited queue's accuracy (issue 15): requested vs achieved starts per second over
  // 30 s under more demand than the rate (bench/rate_row.ts).
  'rate-sqlite-normal': {
    kind: 'other',
    inDefault: false,
    measure: async (dir) =>
      (await import('./rate_row.ts')).measureRate(await sqliteStore(dir, 'normal')),
  },
  'rate-postgres': {
    kind: 'other',
    service: 'postgres',
    inDefault: false,
    measure: () =>
      withScratchSchema('cairn_bench_rate', async (schema) => {
        const { PostgresStore } = await import('@cairn/sql/postgres')
        const { measureRate } = await import('./rate_row.ts')
        return measureRate(new PostgresStore({ connectionString: PG_URL, schema }))
      }),
  },
  dbos: {
    kind: 'other',
    service: 'postgres',
    inDefault: true,
    measure: async () => (await import('./dbos_workload.ts')).dbosWorkload(),
  },
}

/** Postgres store, every step on a worker process over `transport`. */
function remoteRow(transport: 'bullmq' | 'db' | 'queue'): Row {
  return {
    kind: 'other',
    service: 'postgres',
    inDefault: false,
    measure: () =>
      withScratchSchema(`cairn_bench_remote_${transport}`, async (schema) => {
        const { PostgresStore } = await import('@cairn/sql/postgres')
        const { measureRemote } = await import('./remote/remote_row.ts')
        return measureRemote(
          new PostgresStore({ connectionString: PG_URL, schema }),
          transport,
          schema,
        )
      }),
  }
}

function queueRow(
  variant: 'steps' | 'steps10' | 'queue' | 'queue-leased',
  store: 'sqlite' | 'postgres',
): Row {
  const measure = async (make: () => Promise<StateStore>) =>
    (await import('./queue_row.ts')).measureQueue(await make(), variant)
  if (store === 'sqlite')
    return {
      kind: 'other',
      inDefault: false,
      measure: (dir) => measure(() => sqliteStore(dir, 'normal')),
    }
  return {
    kind: 'other',
    service: 'postgres',
    inDefault: false,
    measure: () =>
      withScratchSchema(`cairn_bench_queue_${variant.replace('-', '_')}`, async (schema) => {
        const { PostgresStore } = await import('@cairn/sql/postgres')
        return measure(async () => new PostgresStore({ connectionString: PG_URL, schema }))
      }),
  }
}

function engineRow(store: (dir: string) => Promise<StateStore>): Row {
  return {
    kind: 'engine',
    inDefault: true,
    measure: async (dir) => (await import('./engine_row.ts')).measureEngine(await store(dir)),
  }
}

function rawRow(measure: (dir: string) => Promise<object>): Row {
  return { kind: 'raw', inDefault: true, measure }
}

async function sqliteStore(dir: string, synchronous: 'full' | 'normal'): Promise<StateStore> {
  const { SqliteStore } = await import('@cairn/sql/sqlite')
  return new SqliteStore({ path: join(dir, 'bench.db'), synchronous })
}
