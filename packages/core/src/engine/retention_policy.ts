/**
 * Retention policies (docs/retention.md) as users write them — in engine options and
 * `config/durable.ts` — checked once at construction: a policy names terminal statuses, an
 * optional workflow, and `maxAge` and/or `maxCount` (a run goes once past either). A policy
 * with neither, an open status, an unknown key or a bad number is refused at boot.
 */
import type { TerminalStatus } from '../contracts/records.ts'
import { InvalidArgumentError } from '../errors/index.ts'
import { MAX_DELETE_ROOTS, MAX_KEEP_NEWEST } from '../store/retention_rules.ts'
import { isTerminalStatus } from '../store/run_statuses.ts'
import { toMilliseconds, type Duration } from '../util/duration.ts'
import { checkOptionKeys, optionNames } from '../util/known_keys.ts'
import { assertIdentifier } from '../util/validate.ts'

export interface RetentionPolicy {
  /** Terminal statuses the policy deletes: completed, failed, cancelled, continued, dead. */
  statuses: readonly TerminalStatus[]
  /** Only runs of this workflow; absent: every workflow. */
  workflow?: string
  /** A run goes this long after it finished (`'7 days'`, `'12h'`, milliseconds). */
  maxAge?: Duration
  /** Keep the newest N finished runs of the policy's scope (statuses × workflow); 0..1,000,000. */
  maxCount?: number
  /** The policy's name in metrics and events; default `<workflow or *>:<statuses>`. */
  name?: string
}

export interface RetentionOptions {
  policies: readonly RetentionPolicy[]
  /** How often a driving engine sweeps (default '1m'; at least 1 s). */
  interval?: Duration
  /** Trees deleted per transaction (1..100, default 100). */
  batchSize?: number
  /**
   * How long a sweep rests between its delete transactions, so the store's other writers get
   * in (a Duration up to 10 s). Default: 50 ms on SQLite (one writer for the whole file; a
   * sweep without rests would hold it most of the time), 20 ms on server databases.
   */
  pause?: Duration
}

export interface ResolvedRetentionPolicy {
  name: string
  statuses: readonly TerminalStatus[]
  workflow: string | undefined
  maxAgeMs: number | null
  maxCount: number | null
}

export interface ResolvedRetention {
  policies: readonly ResolvedRetentionPolicy[]
  intervalMs: number
  batchSize: number
  /** Null: the store's default (deletionPauseMs). */
  pauseMs: number | null
}

const RETENTION_OPTIONS = {
  call: 'retention',
  known: optionNames<RetentionOptions>({
    policies: true,
    interval: true,
    batchSize: true,
    pause: true,
  }),
}
const POLICY_OPTIONS = {
  call: 'retention policy',
  known: optionNames<RetentionPolicy>({
    statuses: true,
    workflow: true,
    maxAge: true,
    maxCount: true,
    name: true,
  }),
}

const MAX_PAUSE_MS = 10_000
/** Default rests between delete transactions (bench/retention measured them, docs/benchmarks.md). */
const SQLITE_PAUSE_MS = 50
const SERVER_PAUSE_MS = 20

/** The rest between a deletion's transactions: the configured one, else the store's default. */
export function deletionPauseMs(retention: ResolvedRetention | null, storeKind: string): number {
  return retention?.pauseMs ?? (storeKind === 'sqlite' ? SQLITE_PAUSE_MS : SERVER_PAUSE_MS)
}

/** Most policies one engine runs (each is a sweep of its own). */
export const MAX_RETENTION_POLICIES = 100

export function resolveRetention(value: unknown): ResolvedRetention | null {
  if (value === undefined || value === null) return null
  checkOptionKeys(value, RETENTION_OPTIONS)
  const options = value as RetentionOptions
  const policies = options.policies
  if (!Array.isArray(policies) || policies.length > MAX_RETENTION_POLICIES)
    throw new InvalidArgumentError(
      `retention.policies must be an array of at most ${MAX_RETENTION_POLICIES} policies`,
    )
  const intervalMs = toMilliseconds(options.interval ?? 60_000, 'retention.interval')
  if (intervalMs < 1_000)
    throw new InvalidArgumentError(`retention.interval must be at least 1 s, got ${intervalMs} ms`)
  const batchSize = options.batchSize ?? MAX_DELETE_ROOTS
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > MAX_DELETE_ROOTS)
    throw new InvalidArgumentError(
      `retention.batchSize must be an integer 1..${MAX_DELETE_ROOTS}, got ${String(batchSize)}`,
    )
  const pauseMs =
    options.pause === undefined ? null : toMilliseconds(options.pause, 'retention.pause')
  if (pauseMs !== null && pauseMs > MAX_PAUSE_MS)
    throw new InvalidArgumentError(`retention.pause must be at most 10 s, got ${pauseMs} ms`)
  const resolved = policies.map((policy: unknown, i) => resolvePolicy(policy, i))
  const names = resolved.map((policy) => policy.name)
  const twice = names.find((name, i) => names.indexOf(name) !== i)
  if (twice !== undefined)
    throw new InvalidArgumentError(
      `retention.policies: two policies are named ${JSON.stringify(twice)}; give one a name`,
    )
  return { policies: resolved, intervalMs, batchSize, pauseMs }
}

function resolvePolicy(value: unknown, index: number): ResolvedRetentionPolicy {
  const where = `retention.policies[${index}]`
  checkOptionKeys(value, POLICY_OPTIONS, where)
  if (value === undefined) throw new InvalidArgumentError(`${where} must be an object`)
  const policy = value as RetentionPolicy
  const statuses = checkStatuses(policy.statuses, where)
  if (policy.workflow !== undefined) assertIdentifier(policy.workflow, `${where}.workflow`)
  if (policy.maxAge === undefined && policy.maxCount === undefined)
    throw new InvalidArgumentError(
      `${where} needs maxAge, maxCount or both: without either it would delete nothing`,
    )
  const maxAgeMs =
    policy.maxAge === undefined ? null : toMilliseconds(policy.maxAge, `${where}.maxAge`)
  const maxCount = policy.maxCount ?? null
  if (maxCount !== null && !isCount(maxCount))
    throw new InvalidArgumentError(
      `${where}.maxCount must be an integer 0..${MAX_KEEP_NEWEST}, got ${String(maxCount)}`,
    )
  if (policy.name !== undefined) assertIdentifier(policy.name, `${where}.name`)
  const generated = `${policy.workflow ?? '*'}:${statuses.join('+')}`
  // A long workflow name must not make a policy nobody named fail on its name.
  const name = policy.name ?? (generated.length <= 200 ? generated : `policy-${index}`)
  return { name, statuses, workflow: policy.workflow, maxAgeMs, maxCount }
}

function checkStatuses(value: unknown, where: string): readonly TerminalStatus[] {
  if (!Array.isArray(value) || value.length === 0)
    throw new InvalidArgumentError(
      `${where}.statuses must be a non-empty array of terminal statuses (completed, failed, cancelled, continued, dead)`,
    )
  for (const status of value as unknown[])
    if (typeof status !== 'string' || !isTerminalStatus(status))
      throw new InvalidArgumentError(
        `${where}.statuses: ${JSON.stringify(status)} is not a terminal status: only finished runs are ever deleted`,
      )
  return [...new Set(value as TerminalStatus[])]
}

function isCount(value: unknown): value is number {
  return (
    typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_KEEP_NEWEST
  )
}
