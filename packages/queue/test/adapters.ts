/**
 * A queue transport per test over a real adapter of `@boringnode/queue`: Redis under a key
 * prefix of its own, or the Knex adapter on a jobs table of its own in Postgres, MariaDB or a
 * SQLite file. Cleanup removes every key or table it made and closes its connections. A service
 * that is down skips its tests with one loud line (a failure under CI=true).
 */
import { randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { RefusedMessage } from '@cairn/core/contracts'
import type { TransportUnderTest } from '@cairn/conformance'
import { QueueSchemaService } from '@boringnode/queue'
import { knex as knexAdapter } from '@boringnode/queue/drivers/knex_adapter'
import { redis as redisAdapter } from '@boringnode/queue/drivers/redis_adapter'
import { Redis } from 'ioredis'
import knex, { type Knex } from 'knex'
import { MYSQL_URL, PG_URL, REDIS_URL } from '../../../tests/helpers/services.ts'
import type { QueueAdapterFactory } from '../src/adapter.ts'
import { queueTransport, type QueueTransportOptions } from '../src/index.ts'
import { queueNames, routeOf, TASK_JOB } from '../src/layout.ts'
import { RegistryRecord, withEntry } from '../src/registry.ts'

export type AdapterKind = 'redis' | 'postgres' | 'mysql' | 'sqlite'

export interface AdapterUnderTest {
  factory: QueueAdapterFactory
  cleanup(): Promise<void>
}

/**
 * @boringnode/queue's Redis adapter on the Redis at `url`, every key under `prefix` (the
 * adapter makes and owns its connection: a half closes it when it closes).
 */
export function redisAdapterAt(url: string, prefix: string): QueueAdapterFactory {
  const where = new URL(url)
  return redisAdapter({
    host: where.hostname,
    port: Number(where.port || 6379),
    keyPrefix: `${prefix}::`,
  })
}

function unique(): string {
  return `cq_${process.pid}_${randomBytes(5).toString('hex')}`
}

/** A fresh, empty adapter store of `kind`. */
export async function adapterOf(kind: AdapterKind): Promise<AdapterUnderTest> {
  if (kind === 'redis') {
    const prefix = unique()
    const connection = new Redis(REDIS_URL, { keyPrefix: `${prefix}::`, maxRetriesPerRequest: 3 })
    return {
      factory: redisAdapter(connection),
      cleanup: async () => {
        await dropRedisPrefix(`${prefix}::`)
        await connection.quit()
      },
    }
  }
  const table = unique()
  let directory: string | null = null
  let config: Knex.Config
  if (kind === 'postgres') config = { client: 'pg', connection: PG_URL, pool: { min: 0, max: 6 } }
  else if (kind === 'mysql')
    config = { client: 'mysql2', connection: MYSQL_URL, pool: { min: 0, max: 6 } }
  else {
    directory = await mkdtemp(join(tmpdir(), 'cairn-queue-'))
    config = {
      client: 'better-sqlite3',
      connection: { filename: join(directory, 'queue.db') },
      useNullAsDefault: true,
    }
  }
  const db = knex(config)
  const schema = new QueueSchemaService(db)
  await schema.createJobsTable(table)
  return {
    factory: knexAdapter(db, table),
    cleanup: async () => {
      await schema.dropJobsTable(table)
      await db.destroy()
      if (directory !== null) await rm(directory, { recursive: true, force: true })
    },
  }
}

async function dropRedisPrefix(prefix: string): Promise<void> {
  const client = new Redis(REDIS_URL)
  try {
    let cursor = '0'
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000)
      cursor = next
      if (keys.length > 0) await client.del(...keys)
    } while (cursor !== '0')
  } finally {
    await client.quit()
  }
}

export type Options = Omit<QueueTransportOptions, 'adapter' | 'onRefused'>

/** The conformance suite's view of a queue transport over a fresh adapter of `kind`. */
export async function createUnderTest(
  kind: AdapterKind,
  options: Options = {},
): Promise<TransportUnderTest> {
  const made = await adapterOf(kind)
  const refused: RefusedMessage[] = []
  const transport = queueTransport({
    adapter: made.factory,
    stalledIntervalMs: 200,
    pollIntervalMs: 100,
    redeliverAfterMs: 100,
    onRefused: (r) => refused.push(r),
    ...options,
  })
  const names = queueNames(options.prefix ?? 'cairn')
  const raw = made.factory()
  raw.setWorkerId('raw-producer')
  return {
    engine: () => transport.engine(),
    worker: () => transport.worker(),
    depthCounts: 'ready',
    refused,
    // A misbehaving producer: raw text on the step's task queue, its route registered like any.
    publishRawTask: async (taskId, text, step) => {
      const queue = names.task(step, [])
      const route = JSON.stringify(routeOf(step, []))
      await new RegistryRecord(raw, names.registry, 'routes').update(
        (entries) => withEntry(entries, queue, route),
        (entries) => entries[queue] === route,
      )
      await raw.pushOn(queue, { id: taskId, name: TASK_JOB, payload: text, attempts: 0 })
    },
    sendRawReport: async (text) => {
      await raw.pushOn(names.reports, {
        id: randomBytes(8).toString('hex'),
        name: 'report',
        payload: text,
        attempts: 0,
      })
    },
    cleanup: async () => {
      await raw.destroy()
      await made.cleanup()
    },
  }
}
