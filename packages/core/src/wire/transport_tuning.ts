/**
 * The tunables every transport of Cairn takes alike (the db transport, BullMQ, `@adonisjs/queue`):
 * how often an idle half looks for work, how reports reach engines, how long the fleet is
 * remembered, and where refusals and background errors go. One resolver, so the three refuse a
 * bad value with the same E_INVALID_ARGUMENT and default what they share the same way. Lives
 * beside the wire because a worker process loads it and must load no store code.
 */
import type { TransportOptions } from '../contracts/transport.ts'
import { InvalidArgumentError } from '../errors/index.ts'
import { checkInteger, type IntegerRange } from '../util/numbers.ts'

export interface TransportTuningOptions extends TransportOptions {
  /** An idle half looks for work at least this often (ms); a transport's own default. */
  pollIntervalMs?: number
  /** Most reports handed to an engine's handler at once; a transport's own default. */
  reportBatchSize?: number
  /** A report batch the handler rejected is delivered again after this long (ms). Default 1 000. */
  redeliverAfterMs?: number
  /**
   * How long an engine holds a report batch while its handler runs (ms); extended while it
   * runs, it lapses (the batch goes to another engine) if the engine dies. Default 30 000.
   */
  reportHoldMs?: number
  /** Announcements older than this are forgotten when engines list the fleet (ms). Default 1 day. */
  forgetWorkersAfterMs?: number
  /** Errors of background work (connections, polls); default: ignored (they retry). */
  onError?: (error: unknown) => void
}

export interface TransportTuning {
  pollIntervalMs: number
  reportBatchSize: number
  redeliverAfterMs: number
  reportHoldMs: number
  forgetWorkersAfterMs: number
  onRefused: NonNullable<TransportOptions['onRefused']>
  onError: (error: unknown) => void
}

/** What differs between transports. */
export interface TuningDefaults {
  pollIntervalMs: number
  /** The least poll interval accepted (ms); default 1. */
  minPollIntervalMs?: number
  reportBatchSize: number
}

/** The tunables' keys, for a transport's `optionNames` list (spread into it). */
export const TRANSPORT_TUNING_KEYS: {
  readonly [K in keyof Required<TransportTuningOptions>]: true
} = {
  pollIntervalMs: true,
  reportBatchSize: true,
  redeliverAfterMs: true,
  reportHoldMs: true,
  forgetWorkersAfterMs: true,
  onRefused: true,
  onError: true,
}

const MAX_MS = 2_147_483_647 // a timer's limit

/** Checks and defaults the tunables; `call` names the factory in messages. */
export function resolveTransportTuning(
  options: TransportTuningOptions,
  call: string,
  defaults: TuningDefaults,
): TransportTuning {
  const int = (key: keyof TransportTuningOptions, fallback: number, range: IntegerRange) => {
    const value: unknown = options[key]
    return value === undefined ? fallback : checkInteger(value, `${call}: ${key}`, range)
  }
  for (const key of ['onRefused', 'onError'] as const) {
    const value: unknown = options[key]
    if (value !== undefined && typeof value !== 'function')
      throw new InvalidArgumentError(`${call}: ${key} must be a function`, {
        details: { call, option: key },
      })
  }
  return {
    pollIntervalMs: int('pollIntervalMs', defaults.pollIntervalMs, {
      min: defaults.minPollIntervalMs ?? 1,
      max: MAX_MS,
    }),
    reportBatchSize: int('reportBatchSize', defaults.reportBatchSize, { min: 1, max: 10_000 }),
    redeliverAfterMs: int('redeliverAfterMs', 1_000, { min: 1, max: MAX_MS }),
    reportHoldMs: int('reportHoldMs', 30_000, { min: 100, max: MAX_MS }),
    forgetWorkersAfterMs: int('forgetWorkersAfterMs', 86_400_000, { min: 1, max: MAX_MS }),
    onRefused: options.onRefused ?? (() => {}),
    onError: options.onError ?? (() => {}),
  }
}
