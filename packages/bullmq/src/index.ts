/**
 * `@cairn/bullmq`: the BullMQ (Redis) transport for Cairn remote steps.
 *
 *   const transport = bullmqTransport({ connection: 'redis://127.0.0.1:6379' })
 *   const engineSide = transport.engine()   // EngineTransport, for the engine
 *   const workerSide = transport.worker()   // WorkerTransport, for createWorker
 *
 * How the contract maps onto BullMQ: README.md and docs/bullmq.md.
 */
import type { EngineTransport, WorkerTransport } from '@cairn/core/contracts'
import { BullmqEngineTransport } from './engine.ts'
import { resolveOptions, type BullmqTransportOptions } from './options.ts'
import { BullmqWorkerTransport } from './worker.ts'

export type { BullmqTransportOptions } from './options.ts'

/** Both halves of the transport; each half made is opened and closed by its user. */
export interface BullmqTransport {
  /** A new engine half (one per engine; open it, then publish and consume). */
  engine(): EngineTransport
  /** A new worker half (one per worker process). */
  worker(): WorkerTransport
}

/** Checks the options at once (E_INVALID_ARGUMENT); connects when a half is opened. */
export function bullmqTransport(options: BullmqTransportOptions): BullmqTransport {
  const resolved = resolveOptions(options)
  return {
    engine: () => new BullmqEngineTransport(resolved),
    worker: () => new BullmqWorkerTransport(resolved),
  }
}
