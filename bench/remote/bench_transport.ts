/**
 * The transport of a remote bench row, as JSON its worker process is handed: BullMQ or the
 * @adonisjs/queue transport's Redis adapter under a prefix of its own, or the db transport in
 * the store's Postgres schema. Default options both:
 * the rows measure what a user gets.
 */
import type { EngineTransport, WorkerTransport } from '@cairn/core/contracts'

export type BenchTransportSpec =
  | { kind: 'bullmq'; url: string; prefix: string }
  | { kind: 'queue'; url: string; prefix: string }
  | { kind: 'db'; connectionString: string; schema: string }

export async function benchTransport(
  spec: BenchTransportSpec,
): Promise<{ engine(): EngineTransport; worker(): WorkerTransport }> {
  if (spec.kind === 'queue') {
    const { queueTransport } = await import('@cairn/queue')
    const { redisAdapterAt } = await import('../../packages/queue/test/adapters.ts')
    return queueTransport({ adapter: redisAdapterAt(spec.url, spec.prefix) })
  }
  if (spec.kind === 'bullmq') {
    const { bullmqTransport } = await import('@cairn/bullmq')
    return bullmqTransport({ connection: spec.url, prefix: spec.prefix })
  }
  const { postgresTransport } = await import('@cairn/sql/transport')
  return postgresTransport({ connectionString: spec.connectionString, schema: spec.schema })
}
