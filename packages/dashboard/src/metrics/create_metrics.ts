/**
 * createMetrics(engine): the engine's Prometheus metrics on a prom-client registry (docs/
 * metrics.md lists them). Counters and the step histogram are fed by engine events (engine.on:
 * this engine only); the backlog gauges read engine.backlog() at scrape time. `render()` is the
 * exposition text a `GET /metrics` answers with `contentType`; it never rejects because the
 * store is down (backlog_gauges.ts). `close()` unsubscribes and removes these metrics from the
 * registry, leaving any others there.
 */
import { InvalidArgumentError, type Engine } from '@cairn/core'
import { checkInteger, MAX_TIME_MS, NUMBER_RANGES, type IntegerRange } from '@cairn/core/store-kit'
import { Registry } from 'prom-client'
import { backlogGauges } from './backlog_gauges.ts'
import { workerGauges } from './worker_gauges.ts'
import { taskQueueGauges } from './task_queue_gauges.ts'
import { queueGauges } from './queue_gauges.ts'
import { taskCounters } from './task_counters.ts'
import type { MetricsContext } from './context.ts'
import { LabelValues } from './label_values.ts'
import { recoveryCounters } from './recovery_counters.ts'
import { resumeMetrics } from './resume_metrics.ts'
import { runCounters } from './run_counters.ts'
import { retentionMetrics } from './retention_metrics.ts'
import { scheduleMetrics } from './schedule_metrics.ts'
import { stepMetrics } from './step_metrics.ts'

export interface MetricsOptions {
  /** Register here (e.g. prom-client's global `register`, beside your own); default: a new one. */
  registry?: Registry
  /** Metric name prefix, `[a-zA-Z_:][a-zA-Z0-9_:]*`. Default `cairn_`. */
  prefix?: string
  /** A scrape within this many ms of the last backlog read reuses it. Default 2000. */
  backlogCacheMs?: number
  /** A backlog read slower than this counts as failed (gauges keep their values). Default 5000. */
  backlogTimeoutMs?: number
  /** Distinct workflow label values before new ones become `_other`. Default 200. */
  maxWorkflows?: number
  /** Distinct step label values before new ones become `_other`. Default 1000. */
  maxSteps?: number
  /** Distinct schedule label values before new ones become `_other`. Default 200. */
  maxSchedules?: number
}

export interface Metrics {
  readonly registry: Registry
  /** The Content-Type of `render()`'s text. */
  readonly contentType: string
  render(): Promise<string>
  close(): void
}

const PREFIX = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/
/**
 * Distinct `policy` label values before new ones become `_other`: an engine runs at most 100
 * retention policies (core's MAX_RETENTION_POLICIES), so only names beyond those of one
 * engine's configuration are folded.
 */
const MAX_POLICY_LABELS = 100

export function createMetrics(engine: Engine, options: MetricsOptions = {}): Metrics {
  const registry = options.registry ?? new Registry()
  const prefix = options.prefix ?? 'cairn_'
  if (typeof prefix !== 'string' || (prefix !== '' && !PREFIX.test(prefix)))
    throw new InvalidArgumentError(
      `createMetrics: prefix must match ${PREFIX}, got ${String(prefix)}`,
    )
  const ctx: MetricsContext = {
    engine,
    registry,
    prefix,
    workflows: new LabelValues(number(options.maxWorkflows, 200, 'maxWorkflows', LABELS)),
    steps: new LabelValues(number(options.maxSteps, 1000, 'maxSteps', LABELS)),
    schedules: new LabelValues(number(options.maxSchedules, 200, 'maxSchedules', LABELS)),
    policies: new LabelValues(MAX_POLICY_LABELS),
  }
  const backlog = {
    // 0: no caching (every scrape reads). The timeout is a timer's: at least 1 ms, at most
    // what one setTimeout holds (above, Node would fire it after 1 ms: every read timed out).
    cacheMs: number(options.backlogCacheMs, 2000, 'backlogCacheMs', { min: 0, max: MAX_TIME_MS }),
    timeoutMs: number(options.backlogTimeoutMs, 5000, 'backlogTimeoutMs', NUMBER_RANGES.periodMs),
  }
  const before = new Set(registry.getMetricsAsArray().map((metric) => metric.name))
  const stops = [
    runCounters(ctx),
    stepMetrics(ctx),
    recoveryCounters(ctx),
    resumeMetrics(ctx),
    taskCounters(ctx),
    scheduleMetrics(ctx),
    retentionMetrics(ctx),
  ]
  backlogGauges(ctx, backlog)
  workerGauges(ctx, backlog)
  taskQueueGauges(ctx, backlog)
  queueGauges(ctx, backlog)
  const ours = registry.getMetricsAsArray().filter((metric) => !before.has(metric.name))
  let closed = false
  return {
    registry,
    contentType: registry.contentType,
    render: () => registry.metrics(),
    close() {
      if (closed) return
      closed = true
      stops.forEach((stop) => stop())
      for (const metric of ours) registry.removeSingleMetric(metric.name)
    },
  }
}

/** Label values kept per label (0: every value counts as `_other`). */
const LABELS = { min: 0, max: NUMBER_RANGES.count.max }

/** A numeric option through core's one check; the default only when it was left out. */
function number(value: unknown, fallback: number, name: string, range: IntegerRange): number {
  return checkInteger(value === undefined ? fallback : value, `createMetrics: ${name}`, range)
}
