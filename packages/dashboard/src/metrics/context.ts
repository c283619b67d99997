/** What every group of metrics is built from. */
import type { Engine } from '@cairn/core'
import type { Registry } from 'prom-client'
import type { LabelValues } from './label_values.ts'

export interface MetricsContext {
  engine: Engine
  registry: Registry
  /** Prepended to every metric name (`cairn_` by default). */
  prefix: string
  /** Bounded label values (label_values.ts). */
  workflows: LabelValues
  steps: LabelValues
  schedules: LabelValues
  /** Retention policy names (an engine has at most MAX_POLICY_LABELS of them). */
  policies: LabelValues
}

/** A group of metrics fed by engine events: `stop()` unsubscribes them. */
export type Unsubscribe = () => void
