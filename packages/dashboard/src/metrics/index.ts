/** Prometheus metrics for a Cairn engine (docs/metrics.md). */
export { createMetrics, type Metrics, type MetricsOptions } from './create_metrics.ts'
export { OVERFLOW_VALUE } from './label_values.ts'
export { STEP_DURATION_BUCKETS } from './buckets.ts'
