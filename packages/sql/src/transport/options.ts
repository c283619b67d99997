/**
 * What the db transport takes, checked once when it is created: an unknown key, a bad number or
 * a missing connection is refused there with E_INVALID_ARGUMENT, never found later on a
 * connection that went somewhere else.
 */
import type { TransportOptions } from '@cairn/core/contracts'
import { InvalidArgumentError } from '@cairn/core/errors'

/** Tunables every dialect takes (docs/db-transport.md). */
export interface DbTransportTuning extends TransportOptions {
  /**
   * An idle `receive` (and an idle engine consumer) looks for rows at least this often (ms).
   * Postgres also wakes at once on NOTIFY, so its default is 1 000; MariaDB and SQLite poll,
   * default 100.
   */
  pollIntervalMs?: number
  /** Most reports handed to an engine's handler at once. Default 200. */
  reportBatchSize?: number
  /** A report batch the handler rejected is delivered again after this long (ms). Default 1 000. */
  redeliverAfterMs?: number
  /**
   * How long an engine holds a report batch while its handler runs (ms); extended while it
   * runs, it lapses (the batch goes to another engine) if the engine dies. Default 30 000.
   */
  reportHoldMs?: number
  /** Announcements older than this are deleted when engines list the fleet (ms). Default 1 day. */
  forgetWorkersAfterMs?: number
  /** Errors of background work (wake-up connections, polls); default: ignored (they retry). */
  onError?: (error: unknown) => void
}

export interface ResolvedTuning {
  pollIntervalMs: number
  reportBatchSize: number
  redeliverAfterMs: number
  reportHoldMs: number
  forgetWorkersAfterMs: number
  onRefused: NonNullable<TransportOptions['onRefused']>
  onError: (error: unknown) => void
}

/**
 * Checked here, not with core's store-kit helpers: a db-transport worker loads this file, and
 * store-kit would bring the memory store into a process that must hold no store code.
 */
const TUNING_KEYS: { readonly [K in keyof Required<DbTransportTuning>]: true } = {
  pollIntervalMs: true,
  reportBatchSize: true,
  redeliverAfterMs: true,
  reportHoldMs: true,
  forgetWorkersAfterMs: true,
  onRefused: true,
  onError: true,
}

const PERIOD = { min: 1, max: 2_147_483_647 }

/** Refuses keys outside `own` and the tunables; `call` names the factory in messages. */
export function checkTransportKeys(options: unknown, call: string, own: readonly string[]): void {
  if (!isPlainObject(options))
    throw new InvalidArgumentError(`${call}: options must be a plain object`, {
      details: { call },
    })
  const known = [...Object.keys(TUNING_KEYS), ...own]
  for (const key of Reflect.ownKeys(options)) {
    if (typeof key === 'string' && known.includes(key)) continue
    if (!Object.prototype.propertyIsEnumerable.call(options, key)) continue
    const option = typeof key === 'string' ? JSON.stringify(key) : key.toString()
    throw new InvalidArgumentError(
      `${call}: unknown option ${option} (${call} takes ${known.join(', ')})`,
      { details: { call, option: String(key), known } },
    )
  }
}

/** An integer option within `range`, refused otherwise (NaN, 1.5, '10', Infinity). */
export function checkInteger(
  value: unknown,
  where: string,
  range: { min: number; max: number },
): number {
  if (
    typeof value !== 'number' ||
    !Number.isInteger(value) ||
    value < range.min ||
    value > range.max
  )
    throw new InvalidArgumentError(
      `${where} must be an integer from ${range.min} to ${range.max}, got ${describe(value)}`,
      { details: { option: where } },
    )
  return value
}

function describe(value: unknown): string {
  return typeof value === 'number' || typeof value === 'bigint'
    ? String(value)
    : typeof value === 'string'
      ? JSON.stringify(value)
      : value === null
        ? 'null'
        : typeof value
}

function isPlainObject(value: unknown): value is object {
  if (typeof value !== 'object' || value === null) return false
  const proto: unknown = Object.getPrototypeOf(value)
  return proto === null || Object.getPrototypeOf(proto) === null
}

export function resolveTuning(
  options: DbTransportTuning,
  call: string,
  defaultPollMs: number,
): ResolvedTuning {
  const int = (
    key: keyof DbTransportTuning,
    fallback: number,
    range: { min: number; max: number } = PERIOD,
  ): number => {
    const value = options[key]
    return value === undefined ? fallback : checkInteger(value, `${call}: ${key}`, range)
  }
  for (const key of ['onRefused', 'onError'] as const) {
    const value = options[key]
    if (value !== undefined && typeof value !== 'function')
      throw new InvalidArgumentError(`${call}: ${key} must be a function`, {
        details: { call, option: key },
      })
  }
  return {
    pollIntervalMs: int('pollIntervalMs', defaultPollMs, { min: 10, max: PERIOD.max }),
    reportBatchSize: int('reportBatchSize', 200, { min: 1, max: 10_000 }),
    redeliverAfterMs: int('redeliverAfterMs', 1_000),
    reportHoldMs: int('reportHoldMs', 30_000, { min: 100, max: PERIOD.max }),
    forgetWorkersAfterMs: int('forgetWorkersAfterMs', 86_400_000),
    onRefused: options.onRefused ?? (() => {}),
    onError: options.onError ?? (() => {}),
  }
}

/** A non-empty string option (a URL, a path), refused otherwise. */
export function checkText(value: unknown, call: string, option: string): string {
  if (typeof value !== 'string' || value === '' || value.includes('\u0000'))
    throw new InvalidArgumentError(`${call}: ${option} must be a non-empty string`, {
      details: { call, option },
    })
  return value
}

/** Exactly one of the ways to reach the database. */
export function exactlyOne(options: Record<string, unknown>, call: string, ways: string[]): void {
  const given = ways.filter((way) => options[way] !== undefined)
  if (given.length !== 1)
    throw new InvalidArgumentError(`${call}: give exactly one of ${ways.join(', ')}`, {
      details: { call, option: ways[0], given },
    })
}

/** A plain settings object (a driver's pool options), or null when not given. */
export function checkObject(value: unknown, call: string, option: string): object | null {
  if (value === undefined) return null
  if (!isPlainObject(value))
    throw new InvalidArgumentError(`${call}: ${option} must be a plain object of settings`, {
      details: { call, option },
    })
  return value
}
