/**
 * The worker fleet as an engine sees it (`engine.listWorkers`): each transport's newest
 * announcement per worker, made recently enough, with whether this engine speaks a protocol
 * version the worker speaks (a worker it does not is listed, flagged, never trusted with work).
 */
import type { TaskDepth } from '../contracts/transport.ts'
import type { AnnounceMessage, WorkerConcurrency } from '../wire/index.ts'
import { agreedProtocol } from '../wire/index.ts'

/** One live worker. */
export interface WorkerInfo {
  /** The engine transport it was heard on (a key of EngineOptions.transports). */
  transport: string
  workerId: string
  host: string
  pid: number | null
  /** e.g. `node 24.21.0`. */
  runtime: string
  steps: string[]
  capabilities: string[]
  concurrency: WorkerConcurrency
  /** Attempts it was running at its last announcement. */
  inFlight: number
  startedAt: number
  /** Its last announcement (its own clock). */
  lastSeenAt: number
  protocols: number[]
  /** The protocol version this engine and the worker agree on, or null: incompatible. */
  protocol: number | null
}

export interface ListWorkersOptions {
  /**
   * Workers whose last announcement is at most this old (ms). Default 30 000: three of a
   * worker's default announcement periods.
   */
  seenWithinMs?: number
}

export const DEFAULT_SEEN_WITHIN_MS = 30_000

export function workerInfo(transport: string, message: AnnounceMessage): WorkerInfo {
  return {
    transport,
    workerId: message.workerId,
    host: message.host,
    pid: message.pid,
    runtime: message.runtime,
    steps: [...message.steps],
    capabilities: [...message.capabilities],
    concurrency: { ...message.concurrency },
    inFlight: message.inFlight,
    startedAt: message.startedAt,
    lastSeenAt: message.at,
    protocols: [...message.protocols],
    protocol: agreedProtocol(message.protocols),
  }
}

/** What waits on one of the engine's transports for one step (engine.taskDepth()). */
export interface TaskQueueDepth extends TaskDepth {
  /** The engine transport (a key of EngineOptions.transports). */
  transport: string
}
