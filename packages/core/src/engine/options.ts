/**
 * Engine configuration with defaults, validated at construction: a bad option fails fast
 * with a message naming it.
 */
import type { EngineTransport } from '../contracts/transport.ts'
import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import type { Clock } from '../contracts/clock.ts'
import type { Codec } from '../contracts/codec.ts'
import type { Logger } from '../contracts/logger.ts'
import type { StateStore } from '../contracts/state_store.ts'
import { InvalidArgumentError } from '../errors/index.ts'
import { systemClock } from '../clock/system_clock.ts'
import { JsonCodec } from '../codec/index.ts'
import { checkOptionKeys } from '../util/known_keys.ts'
import { checkInteger, MAX_TIME_MS, MAX_TIMER_MS, NUMBER_RANGES } from '../util/numbers.ts'
import { assertIdentifier } from '../util/validate.ts'
import { defaultLogger } from './default_logger.ts'
import { ENGINE_OPTIONS } from './option_specs.ts'
import { checkQueues, type QueueOptions } from './queue_registry.ts'
import type { DeclaredSchedule } from './schedule_spec.ts'
import {
  resolveRetention,
  type ResolvedRetention,
  type RetentionOptions,
} from './retention_policy.ts'
import { resolveStepLogs, type ResolvedStepLogs, type StepLogOptions } from './step_log_options.ts'

export interface EngineOptions {
  store: StateStore
  codec?: Codec
  clock?: Clock
  logger?: Logger
  /**
   * Identity of this engine process. Give a stable id (per host/slot) so a restarted process
   * reclaims its runs at once instead of waiting for their leases to expire. Default: random.
   */
  instanceId?: string
  /** Most runs executing at once in this process. Default 100. */
  concurrency?: number
  /** Lease length; a crashed holder's runs are recovered this long after its last renewal. Default 30s. */
  leaseMs?: number
  /** Safety-net poll interval for work started elsewhere. Default 1000 ms. */
  pollIntervalMs?: number
  /**
   * Waits (sleeps, retry back-offs) up to this long stay in memory under the lease; longer ones
   * suspend the run. Must be shorter than `leaseMs`. Default: 5000 ms, or half of `leaseMs`
   * when that is shorter (a 2 s lease holds waits of up to 1 s).
   */
  holdTimersUpToMs?: number
  /** A claimable run no engine can run (unknown workflow version) is parked after this long. Default 60s. */
  parkUnrunnableAfterMs?: number
  /** Most writes in one group commit. Default 1000. */
  maxBatch?: number
  /**
   * Public base URL where the app mounts the webhook receiver (e.g.
   * `https://shop.example.com/durable/webhooks`): `ctx.webhook()` URLs are `<webhookUrl>/<token>`.
   * Default: none (webhooks have a token and no URL).
   */
  webhookUrl?: string
  /**
   * How long published events stay in the event log (pruned by later publishes). The log only
   * has to cover the moment between a run's `waitForEvent` and its suspend, so the default
   * (1 hour) is generous. Default 3_600_000 ms.
   */
  eventRetentionMs?: number
  /**
   * Transports remote steps are dispatched on, by name (a registered step's or a call's
   * `transport` names one): the engine half of each, e.g. `{ bullmq: bullmqTransport(…).engine() }`.
   * While this engine drives, it consumes their results. Default: none (every step in process).
   */
  transports?: Readonly<Record<string, EngineTransport>>
  /**
   * Named queues steps can be called on (`ctx.step(ref, input, { queue })`), registered as
   * `engine.registerQueue(name, options)` would: `{ carrier: { concurrency: 4 } }`.
   */
  queues?: Readonly<Record<string, QueueOptions>>
  /**
   * How many times a run's lease may be taken over without the run moving on (its process
   * crashed, or its history could not be read) before the run ends `dead` instead of being
   * recovered again (RunInfo.recoveries; docs/dead-letters.md). 0 to 1000; `Infinity`
   * recovers forever. Default 5.
   */
  maxRecoveryAttempts?: number
  /**
   * How many suspended runs this engine keeps in memory, their workflow code paused where it
   * waits, so that the next turn it claims of one goes on from there instead of replaying the
   * whole history (docs/run-cache.md). Least recently suspended runs go first. 0 turns the
   * cache off (every turn replays). 0 to 100000; default 1000.
   */
  maxCachedRuns?: number
  /**
   * The workflow that receives every run that ends `dead` or `failed`, started as
   * `dlq:<runId>` with a `DeadLetter` input. A workflow's own `deadLetterWorkflow` option
   * overrides it (`null` there: none). Default: none.
   */
  deadLetterWorkflow?: string
  /**
   * Schedules declared in code (docs/schedules.md): `[{ id, workflow, cron, … }]`, put in the
   * store when this engine starts driving (only where the stored spec differs).
   */
  schedules?: readonly DeclaredSchedule[]
  /**
   * Retention policies (docs/retention.md): `{ policies: [{ statuses: ['completed'], maxAge:
   * '7 days' }, { workflow: 'sync', statuses: ['failed'], maxCount: 1000 }] }`. Every driving
   * engine sweeps finished runs past them in the background. Default: runs are kept forever.
   */
  retention?: RetentionOptions
  /**
   * Step logs (docs/step-logs.md): `{ maxEntries, flushIntervalMs }` — lines a position keeps
   * (default 200, oldest dropped and counted) and how often a running step's new lines are
   * written (default 1000 ms).
   */
  stepLogs?: StepLogOptions
}

export interface ResolvedEngineOptions {
  store: StateStore
  codec: Codec
  clock: Clock
  logger: Logger
  instanceId: string
  concurrency: number
  leaseMs: number
  pollIntervalMs: number
  holdTimersUpToMs: number
  parkUnrunnableAfterMs: number
  /**
   * Milliseconds on a clock that never goes back and keeps counting while the process is
   * paused (`clock.monotonic`, else `clock.now`): how long a lease has gone unconfirmed.
   */
  monotonic: () => number
  maxBatch: number
  webhookUrl: string | null
  eventRetentionMs: number
  transports: Readonly<Record<string, EngineTransport>>
  /** EngineOptions.queues, checked by the engine's queue registry. */
  queues: Readonly<Record<string, QueueOptions>>
  maxRecoveryAttempts: number
  maxCachedRuns: number
  deadLetterWorkflow: string | null
  schedules: readonly DeclaredSchedule[]
  /** Null: no policy, nothing is swept. */
  retention: ResolvedRetention | null
  stepLogs: ResolvedStepLogs
}

export function resolveEngineOptions(options: EngineOptions): ResolvedEngineOptions {
  if (options === null || typeof options !== 'object' || options.store === undefined) {
    throw new InvalidArgumentError('Engine options must include a store')
  }
  checkOptionKeys(options, ENGINE_OPTIONS)
  const clock = options.clock ?? systemClock
  // Only `undefined` means "not given": a null is a value, refused by validate() by name.
  const leaseMs = given(options.leaseMs, DEFAULT_LEASE_MS)
  const resolved: ResolvedEngineOptions = {
    store: options.store,
    codec: options.codec ?? new JsonCodec(),
    clock,
    logger: options.logger ?? defaultLogger,
    instanceId:
      options.instanceId ?? `${hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`,
    concurrency: given(options.concurrency, 100),
    leaseMs,
    pollIntervalMs: given(options.pollIntervalMs, 1_000),
    holdTimersUpToMs: given(options.holdTimersUpToMs, defaultHoldTimersUpToMs(leaseMs)),
    parkUnrunnableAfterMs: given(options.parkUnrunnableAfterMs, 60_000),
    maxBatch: given(options.maxBatch, 1_000),
    webhookUrl: options.webhookUrl ?? null,
    eventRetentionMs: given(options.eventRetentionMs, 3_600_000),
    transports: options.transports ?? {},
    queues: options.queues === undefined ? {} : checkQueues(options.queues),
    maxRecoveryAttempts: given(options.maxRecoveryAttempts, 5),
    maxCachedRuns: given(options.maxCachedRuns, DEFAULT_MAX_CACHED_RUNS),
    deadLetterWorkflow: given(options.deadLetterWorkflow, null),
    schedules: checkScheduleList(options.schedules),
    retention: resolveRetention(options.retention),
    stepLogs: resolveStepLogs(options.stepLogs),
    monotonic: monotonicOf(clock),
  }
  validate(resolved, options)
  return resolved
}

const DEFAULT_LEASE_MS = 30_000
/** Suspended runs kept in memory by default (EngineOptions.maxCachedRuns). */
const DEFAULT_MAX_CACHED_RUNS = 1_000

/** An array (each entry is checked by the engine's schedule book). */
function checkScheduleList(schedules: unknown): readonly DeclaredSchedule[] {
  if (schedules === undefined) return []
  if (!Array.isArray(schedules))
    throw new InvalidArgumentError(
      'schedules must be an array of { id, workflow, cron | everyMs, … }',
    )
  return schedules as readonly DeclaredSchedule[]
}

function given<T>(value: T | undefined, fallback: T): T {
  return value === undefined ? fallback : value
}
const DEFAULT_HOLD_TIMERS_UP_TO_MS = 5_000

/**
 * A default that depends on another option derives from it, so it never contradicts a value
 * the user set: half the lease, at most 5 s. (An invalid `leaseMs` is refused by name below.)
 */
function defaultHoldTimersUpToMs(leaseMs: number): number {
  if (!Number.isInteger(leaseMs) || leaseMs <= 0) return DEFAULT_HOLD_TIMERS_UP_TO_MS
  return Math.min(DEFAULT_HOLD_TIMERS_UP_TO_MS, Math.floor(leaseMs / 2))
}

function monotonicOf(clock: Clock): () => number {
  if (typeof clock?.monotonic === 'function') return () => (clock.monotonic as () => number)()
  return () => clock.now()
}

function validate(o: ResolvedEngineOptions, given: EngineOptions): void {
  assertIdentifier(o.instanceId, 'instanceId')
  if (o.webhookUrl !== null && !URL.canParse(o.webhookUrl))
    throw new InvalidArgumentError(
      `webhookUrl must be an absolute URL, got ${JSON.stringify(o.webhookUrl)}`,
    )
  positiveInteger(o.concurrency, 'concurrency', MAX_COUNT)
  // Leases and polls are timer periods: a lease of weeks would only delay every recovery.
  positiveInteger(o.leaseMs, 'leaseMs', MAX_TIMER_MS)
  positiveInteger(o.pollIntervalMs, 'pollIntervalMs', MAX_TIMER_MS)
  positiveInteger(o.maxBatch, 'maxBatch', MAX_COUNT)
  positiveInteger(o.parkUnrunnableAfterMs, 'parkUnrunnableAfterMs', MAX_TIME_MS / 2)
  positiveInteger(o.eventRetentionMs, 'eventRetentionMs', MAX_TIME_MS / 2)
  checkInteger(o.holdTimersUpToMs, 'holdTimersUpToMs', { min: 0, max: MAX_TIMER_MS })
  if (o.maxRecoveryAttempts !== Infinity)
    checkInteger(o.maxRecoveryAttempts, 'maxRecoveryAttempts', { min: 0, max: 1_000 })
  checkInteger(o.maxCachedRuns, 'maxCachedRuns', { min: 0, max: 100_000 })
  if (o.deadLetterWorkflow !== null) assertIdentifier(o.deadLetterWorkflow, 'deadLetterWorkflow')
  // Only a value the user gave can contradict leaseMs: the default is derived from it.
  if (given.holdTimersUpToMs !== undefined && o.holdTimersUpToMs >= o.leaseMs) {
    const lease =
      given.leaseMs === undefined ? `the default leaseMs (${o.leaseMs})` : `leaseMs (${o.leaseMs})`
    throw new InvalidArgumentError(
      `holdTimersUpToMs (${o.holdTimersUpToMs}) must be shorter than ${lease}`,
      { details: { option: 'holdTimersUpToMs', value: o.holdTimersUpToMs, leaseMs: o.leaseMs } },
    )
  }
}

const MAX_COUNT = NUMBER_RANGES.count.max

function positiveInteger(value: unknown, name: string, max: number): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0 || value > max) {
    throw new InvalidArgumentError(
      `${name} must be a positive integer up to ${max}, got ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`,
      { details: { option: name } },
    )
  }
}
