/**
 * What the db transport takes, checked once when it is created: an unknown key, a bad number or
 * a missing connection is refused there with E_INVALID_ARGUMENT, never found later on a
 * connection that went somewhere else.
 */
import {
  checkOptionKeys,
  resolveTransportTuning,
  TRANSPORT_TUNING_KEYS,
  type TransportTuning,
  type TransportTuningOptions,
} from '@cairn/core/wire'
import { InvalidArgumentError } from '@cairn/core/errors'

export { checkInteger } from '@cairn/core/wire'

/** Tunables every dialect takes (docs/db-transport.md); the same as the other transports'. */
export interface DbTransportTuning extends TransportTuningOptions {
  /**
   * An idle `receive` (and an idle engine consumer) looks for rows at least this often (ms).
   * Postgres also wakes at once on NOTIFY, so its default is 1 000; MariaDB and SQLite poll,
   * default 100.
   */
  pollIntervalMs?: number
  /** Most reports handed to an engine's handler at once. Default 200. */
  reportBatchSize?: number
}

export type ResolvedTuning = TransportTuning

/**
 * Refuses keys outside `own` and the tunables (a misspelt key would leave a default in force
 * without a word); `call` names the factory in messages. Options are required: the connection.
 */
export function checkTransportKeys(options: unknown, call: string, own: readonly string[]): void {
  if (options === undefined)
    throw new InvalidArgumentError(`${call}: options must be a plain object`, {
      details: { call },
    })
  checkOptionKeys(options, {
    call,
    known: new Set([...Object.keys(TRANSPORT_TUNING_KEYS), ...own]),
  })
}

/** The tunables; `defaultPollMs` is the dialect's (Postgres wakes on NOTIFY, the others poll). */
export function resolveTuning(
  options: DbTransportTuning,
  call: string,
  defaultPollMs: number,
): ResolvedTuning {
  return resolveTransportTuning(options, call, {
    pollIntervalMs: defaultPollMs,
    minPollIntervalMs: 10,
    reportBatchSize: 200,
  })
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

function isPlainObject(value: unknown): value is object {
  if (typeof value !== 'object' || value === null) return false
  const proto: unknown = Object.getPrototypeOf(value)
  return proto === null || Object.getPrototypeOf(proto) === null
}
