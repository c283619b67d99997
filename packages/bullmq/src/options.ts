/**
 * What `bullmqTransport` takes, checked once at creation: a bad option or a malformed URL is
 * refused there with E_INVALID_ARGUMENT, never discovered later on a connection that went to the
 * wrong place (a URL that does not parse never falls back to localhost).
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
import type { Redis, RedisOptions } from 'ioredis'

/** What `bullmqTransport` takes (docs/bullmq.md). */
export interface BullmqTransportOptions extends TransportTuningOptions {
  /**
   * Where Redis is: a `redis://` or `rediss://` URL (`rediss` turns TLS on), ioredis options, or
   * an ioredis instance whose options are used (the transport opens its own connections with
   * them and leaves yours as it is). ioredis' `keyPrefix` is refused: use `prefix`.
   */
  connection: string | RedisOptions | Redis
  /** Every key and channel of this transport starts with it (BullMQ's `prefix`). Default `cairn`. */
  prefix?: string
  /**
   * How often held tasks are checked for a lapsed hold (BullMQ's stalled-job check, ms). A task
   * whose holder went silent is delivered again within its `holdMs` plus twice this. Default 5 000.
   */
  stalledIntervalMs?: number
  /**
   * An idle `receive` looks at its queues at least this often (ms), besides being woken when a
   * task is published, handed back or found stalled. Default 1 000.
   */
  pollIntervalMs?: number
  /** Most reports handed to an engine's handler at once. Default 100. */
  reportBatchSize?: number
}

export interface ResolvedOptions extends TransportTuning {
  redis: RedisOptions
  /** Where Redis is, for messages (no password). */
  where: string
  prefix: string
  stalledIntervalMs: number
}

const CALL = 'bullmqTransport'
const PERIOD = { min: 1, max: 2_147_483_647 }
const PREFIX = /^[A-Za-z0-9_.{}-]{1,100}$/

/**
 * Unknown keys are refused, as every options object of Cairn refuses them: a misspelt
 * `stalledInterval` would otherwise leave the default in force without a word.
 */
const SPEC: OptionsSpec = {
  call: CALL,
  known: optionNames<BullmqTransportOptions>({
    connection: true,
    prefix: true,
    stalledIntervalMs: true,
    ...TRANSPORT_TUNING_KEYS,
  }),
}

export function resolveOptions(options: BullmqTransportOptions): ResolvedOptions {
  if (options === undefined)
    throw new InvalidArgumentError(`${CALL}: options must be a plain object`, {
      details: { call: CALL },
    })
  checkOptionKeys(options, SPEC)
  if ((options as { connection?: unknown }).connection === undefined)
    throw new InvalidArgumentError(`${CALL}: connection is required (a redis:// URL or options)`, {
      details: { call: CALL, option: 'connection' },
    })
  const { redis, where } = redisOptions(options.connection)
  const prefix = options.prefix ?? 'cairn'
  if (typeof prefix !== 'string' || !PREFIX.test(prefix))
    throw new InvalidArgumentError(
      `${CALL}: prefix must be 1 to 100 of A-Z a-z 0-9 _ . - { }, got ${JSON.stringify(prefix)}`,
      { details: { call: CALL, option: 'prefix' } },
    )
  const stalledIntervalMs = options.stalledIntervalMs
  return {
    redis,
    where,
    prefix,
    stalledIntervalMs:
      stalledIntervalMs === undefined
        ? 5_000
        : checkInteger(stalledIntervalMs, `${CALL}: stalledIntervalMs`, PERIOD),
    ...resolveTransportTuning(options, CALL, { pollIntervalMs: 1_000, reportBatchSize: 100 }),
  }
}

function redisOptions(connection: unknown): { redis: RedisOptions; where: string } {
  let redis: RedisOptions
  if (typeof connection === 'string') redis = parseRedisUrl(connection)
  else if (isRedisInstance(connection)) {
    if ('isCluster' in connection && connection.isCluster === true)
      throw invalid('a Redis Cluster is not supported yet: pass a single node')
    redis = { ...connection.options }
  } else if (isPlainObject(connection)) redis = { ...(connection as RedisOptions) }
  else throw invalid('must be a redis:// URL, ioredis options or an ioredis instance')
  if (redis.keyPrefix !== undefined && redis.keyPrefix !== '')
    throw invalid('ioredis keyPrefix is not supported (BullMQ refuses it): use the prefix option')
  const where =
    redis.path !== undefined
      ? redis.path
      : `${redis.host ?? '127.0.0.1'}:${String(redis.port ?? 6379)}`
  return { redis, where }
}

function isRedisInstance(value: unknown): value is Redis {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { duplicate?: unknown }).duplicate === 'function' &&
    typeof (value as { options?: unknown }).options === 'object'
  )
}

/**
 * `redis[s]://[[user]:password@]host[:port][/db]`. Anything else — another scheme, no host, a
 * port or database that is not a number, a query string this parser does not read — is refused.
 */
export function parseRedisUrl(text: string): RedisOptions {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw invalid(`${JSON.stringify(redact(text))} is not a URL`)
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:')
    throw invalid(`the URL scheme must be redis: or rediss:, got ${url.protocol}`)
  if (url.hostname === '') throw invalid('the URL names no host')
  if (url.search !== '' || url.hash !== '')
    throw invalid('the URL may not carry a query or fragment: pass ioredis options instead')
  const options: RedisOptions = { host: url.hostname.replace(/^\[(.*)\]$/, '$1') }
  if (url.port !== '') options.port = Number(url.port)
  else options.port = 6379
  if (url.username !== '') options.username = decodeURIComponent(url.username)
  if (url.password !== '') options.password = decodeURIComponent(url.password)
  const path = url.pathname
  if (path !== '' && path !== '/') {
    const db = /^\/(0|[1-9][0-9]{0,3})$/.exec(path)
    if (db === null) throw invalid(`the URL path must be a database number, got ${path}`)
    options.db = Number(db[1])
  }
  if (url.protocol === 'rediss:') options.tls = {}
  return options
}

function redact(text: string): string {
  return text.replace(/\/\/[^@/]*@/, '//***@')
}

function invalid(reason: string): InvalidArgumentError {
  return new InvalidArgumentError(`${CALL}: connection: ${reason}`, {
    details: { call: CALL, option: 'connection' },
  })
}

function isPlainObject(value: unknown): value is object {
  if (typeof value !== 'object' || value === null) return false
  const proto: unknown = Object.getPrototypeOf(value)
  return proto === null || Object.getPrototypeOf(proto) === null
}
