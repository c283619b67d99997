/** What `createWorker` takes, checked once at creation (a bad option never reaches the loop). */
import type { StepHandler, StepReference } from '@cairn/core'
import { checkStepSchemas, schemaCheckedHandler } from '@cairn/core/wire'
import type { Codec, Logger, WorkerTransport } from '@cairn/core/contracts'
import { InvalidArgumentError } from '@cairn/core/errors'
import type { AdaptiveConcurrency } from './adaptive_limit.ts'

export interface WorkerOptions {
  /** The worker's half of a transport (memory, db, bullmq, …). */
  transport: WorkerTransport
  /** The steps it serves: `defineStep` references, or `{ name: handler }`. */
  steps:
    readonly StepReference<never, unknown>[] | Readonly<Record<string, StepHandler<never, unknown>>>
  /** What this worker offers; a task is taken only if its `requires` are all here. Default none. */
  capabilities?: readonly string[]
  /**
   * Most tasks running at once: a number (default 10), or `'adaptive'` / `{ mode: 'adaptive',
   * min, max, … }` to move that limit between bounds by event-loop delay, CPU and memory
   * (adaptive_limit.ts).
   */
  concurrency?: number | 'adaptive' | AdaptiveConcurrency
  /** This worker's id in announcements and results. Default `<host>-<pid>-<random>`. */
  workerId?: string
  /** Must match the engines' codec (same transform): payloads are decoded and encoded with it. */
  codec?: Codec
  /**
   * How long a task stays held without a heartbeat before the transport delivers it again (ms).
   * Heartbeats go out at the task's `heartbeatIntervalMs`, well inside it. Default 30 000.
   */
  holdMs?: number
  /**
   * How often the worker announces itself (ms). Default and most 10 000: engines count a worker
   * live for 30 s after its last announcement.
   */
  announceEveryMs?: number
  /** Where failures of the worker itself go (a result that could not be sent). Default: console. */
  logger?: Logger
}

/** A registered step's options a worker reads: only the handler runs here; retries are the engine's. */
export type StepTable = ReadonlyMap<string, StepHandler<unknown, unknown>>

export function stepTable(steps: WorkerOptions['steps']): StepTable {
  const table = new Map<string, StepHandler<unknown, unknown>>()
  const entries = Array.isArray(steps)
    ? (steps as readonly StepReference<never, unknown>[]).map(
        // The step's own schemas run here, where its handler runs (docs/validation.md).
        (ref) => {
          checkStepSchemas(ref.name, ref.options ?? {})
          return [ref.name, schemaCheckedHandler(ref.name, ref.handler, ref.options ?? {})] as const
        },
      )
    : Object.entries(steps as Record<string, StepHandler<never, unknown>>)
  for (const [name, handler] of entries) {
    if (typeof name !== 'string' || name === '' || typeof handler !== 'function')
      throw new InvalidArgumentError(
        `steps: each needs a name and a handler function, got ${JSON.stringify(name)}`,
      )
    if (table.has(name)) throw new InvalidArgumentError(`steps: "${name}" is listed twice`)
    table.set(name, handler as StepHandler<unknown, unknown>)
  }
  if (table.size === 0)
    throw new InvalidArgumentError('steps: a worker needs at least one step to serve')
  return table
}
