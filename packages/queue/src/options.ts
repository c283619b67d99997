/**
 * What `queueTransport` takes, checked once at creation: a missing adapter, an unknown key or a
 * bad number is refused there with E_INVALID_ARGUMENT, never found later by a worker polling.
 */
import { InvalidArgumentError } from '@cairn/core/errors'
import {
  checkInteger,
  checkOptionKeys,
  optionNames,
  resolveTransportTuning,
  TRANSPORT_TUNING_KEYS,
  type OptionsSpec,
  type TransportTuning,
  type TransportTuningOptions,
} from '@cairn/core/wire'
import type { QueueAdapterFactory } from './adapter.ts'

/** What `queueTransport` takes (docs/queue-transport.md). */
export interface QueueTransportOptions extends TransportTuningOptions {
  /**
   * Makes an adapter of `@boringnode/queue` (what `@adonisjs/queue`'s drivers resolve to, or
   * `redis(…)` / `knex(…)` from `@boringnode/queue/drivers/*`). Each half of the transport calls
   * it once: an adapter carries one worker id, and each half needs its own.
   */
  adapter: QueueAdapterFactory
  /** Every queue name of this transport starts with it. Default `cairn`. */
  prefix?: string
  /**
   * An idle `receive` (and an idle report consumer) looks at its queues at least this often
   * (ms): the adapter contract has no blocking pop and no wake-up. Default 250.
   */
  pollIntervalMs?: number
  /**
   * How often a worker puts back tasks whose holder went silent for its `holdMs`, and an engine
   * report batches whose engine died (ms). Default 5 000.
   */
  stalledIntervalMs?: number
  /** Most reports handed to an engine's handler at once. Default 100. */
  reportBatchSize?: number
}

export interface ResolvedOptions extends TransportTuning {
  adapter: QueueAdapterFactory
  prefix: string
  stalledIntervalMs: number
}

const CALL = 'queueTransport'

const SPEC: OptionsSpec = {
  call: CALL,
  known: optionNames<QueueTransportOptions>({
    adapter: true,
    prefix: true,
    stalledIntervalMs: true,
    ...TRANSPORT_TUNING_KEYS,
  }),
  // What @adonis-agora/durable's transports.queue took.
  foreign: {
    connection: {
      instead:
        'the adapter says which connection: pass adapter (in AdonisJS, transports.queue({ adapter }) names one of config/queue.ts)',
      use: 'adapter',
    },
  },
}
const PERIOD = { min: 1, max: 2_147_483_647 }
const PREFIX = /^[A-Za-z0-9_-]{1,60}$/

export function resolveOptions(options: QueueTransportOptions): ResolvedOptions {
  if (options === undefined) throw invalid('adapter', 'options are required (at least adapter)')
  checkOptionKeys(options, SPEC)
  if (typeof options.adapter !== 'function')
    throw invalid(
      'adapter',
      'adapter is required: a function making a @boringnode/queue adapter (a driver of @adonisjs/queue, or redis(…) / knex(…) from @boringnode/queue)',
    )
  const prefix = options.prefix ?? 'cairn'
  if (typeof prefix !== 'string' || !PREFIX.test(prefix))
    throw invalid(
      'prefix',
      `prefix must be 1 to 60 of A-Z a-z 0-9 _ -, got ${JSON.stringify(prefix)}`,
    )
  const stalledIntervalMs = options.stalledIntervalMs
  return {
    adapter: options.adapter,
    prefix,
    stalledIntervalMs:
      stalledIntervalMs === undefined
        ? 5_000
        : checkInteger(stalledIntervalMs, `${CALL}: stalledIntervalMs`, PERIOD),
    ...resolveTransportTuning(options, CALL, { pollIntervalMs: 250, reportBatchSize: 100 }),
  }
}

function invalid(option: string, message: string): InvalidArgumentError {
  return new InvalidArgumentError(`${CALL}: ${message}`, { details: { call: CALL, option } })
}
