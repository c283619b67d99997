/**
 * A bullmq transport per test on the machine's Redis: a unique key prefix, and a cleanup that
 * deletes every key under it and closes its own connection. Redis down: the file's tests are
 * skipped with one loud line (a failure under CI=true), as for Postgres and MariaDB.
 */
import { randomBytes } from 'node:crypto'
import type { RefusedMessage } from '@cairn/core/contracts'
import type { TransportUnderTest } from '@cairn/conformance'
import { Queue } from 'bullmq'
import { Redis } from 'ioredis'
import { REDIS_URL, serviceAvailable } from '../../../tests/helpers/services.ts'
import { bullmqTransport, type BullmqTransportOptions } from '../src/index.ts'
import { routeOf, routesKey, taskQueueName } from '../src/layout.ts'
import { addReport } from '../src/report_stream.ts'

export { REDIS_URL }

export const redisUp = await serviceAvailable('redis')

export function uniquePrefix(): string {
  return `cairn-test-${process.pid}-${randomBytes(6).toString('hex')}`
}

/** Deletes every key under `prefix` (never anything else: others use this Redis). */
export async function dropPrefix(prefix: string): Promise<void> {
  const client = new Redis(REDIS_URL)
  try {
    let cursor = '0'
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000)
      cursor = next
      if (keys.length > 0) await client.del(...keys)
    } while (cursor !== '0')
  } finally {
    await client.quit()
  }
}

export type Options = Omit<BullmqTransportOptions, 'connection' | 'prefix' | 'onRefused'>

export function createUnderTest(options: Options = {}): TransportUnderTest & { prefix: string } {
  const prefix = uniquePrefix()
  const refused: RefusedMessage[] = []
  const transport = bullmqTransport({
    connection: REDIS_URL,
    prefix,
    stalledIntervalMs: 200,
    pollIntervalMs: 500,
    redeliverAfterMs: 100,
    onRefused: (r) => refused.push(r),
    ...options,
  })
  const raw = new Redis(REDIS_URL, { maxRetriesPerRequest: null })
  const queues: Queue[] = []
  const queue = (name: string): Queue => {
    const made = new Queue(name, { connection: raw, prefix })
    queues.push(made)
    return made
  }
  return {
    prefix,
    engine: () => transport.engine(),
    worker: () => transport.worker(),
    refused,
    // A misbehaving producer: raw text on the step's task queue, registered like any route.
    publishRawTask: async (taskId, text, step) => {
      const name = taskQueueName(step, [])
      await raw.hset(routesKey(prefix), name, JSON.stringify(routeOf(step, [])))
      await queue(name).add(step, text, { jobId: taskId })
    },
    sendRawReport: async (text) => {
      await addReport(raw, prefix, text)
    },
    cleanup: async () => {
      for (const made of queues) await made.close()
      await raw.quit()
      await dropPrefix(prefix)
    },
  }
}
