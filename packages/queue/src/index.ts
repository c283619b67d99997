/**
 * `@cairn/queue`: the `@adonisjs/queue` transport for Cairn remote steps — tasks and results
 * travel through an adapter of `@boringnode/queue` (the engine under `@adonisjs/queue`), on
 * whatever it stores jobs in: Redis, or the app's database through Knex.
 *
 *   import { redis } from '@boringnode/queue/drivers/redis_adapter'
 *   const transport = queueTransport({ adapter: redis({ host: '127.0.0.1', port: 6379 }) })
 *   const engineSide = transport.engine()   // EngineTransport, for the engine
 *   const workerSide = transport.worker()   // WorkerTransport, for createWorker
 *
 * In an AdonisJS app, `transports.queue()` in config/durable.ts takes the adapter from
 * config/queue.ts. How the contract maps onto the adapter: docs/queue-transport.md.
 */
import type { EngineTransport, WorkerTransport } from '@cairn/core/contracts'
import { QueueEngineTransport } from './engine.ts'
import { resolveOptions, type QueueTransportOptions } from './options.ts'
import { QueueWorkerTransport } from './worker.ts'

export type { QueueTransportOptions } from './options.ts'
export type {
  DedupOutcome,
  QueueAdapter,
  QueueAdapterFactory,
  QueueJobData,
  QueueJobRecord,
} from './adapter.ts'

/** Both halves of the transport; each half made is opened and closed by its user. */
export interface QueueTransport {
  /** A new engine half (one per engine; open it, then publish and consume). */
  engine(): EngineTransport
  /** A new worker half (one per worker process). */
  worker(): WorkerTransport
}

/** Checks the options at once (E_INVALID_ARGUMENT); makes an adapter when a half is opened. */
export function queueTransport(options: QueueTransportOptions): QueueTransport {
  const resolved = resolveOptions(options)
  return {
    engine: () => new QueueEngineTransport(resolved),
    worker: () => new QueueWorkerTransport(resolved),
  }
}
