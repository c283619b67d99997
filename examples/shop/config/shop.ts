import env from '#start/env'

/** The shop's business settings. A run reads them once, at placement (they are in its input). */
export default {
  /** Orders above this amount wait for a manager's approval: $500 by default. */
  approvalThresholdCents: env.get('SHOP_APPROVAL_THRESHOLD_CENTS', 50_000),
  /** How long an order waits for that approval before it is cancelled: a day by default. */
  approvalTimeoutMs: env.get('SHOP_APPROVAL_TIMEOUT_MS', 24 * 60 * 60 * 1000),
  /**
   * The nightly cleanup (app/workflows/abandoned_orders_workflow.ts) closes an order still open
   * this long after its last change whose checkout ended without saying how: two days by default.
   */
  abandonAfterMs: env.get('SHOP_ABANDON_AFTER_MS', 2 * 24 * 60 * 60 * 1000),
  /**
   * How long a completed checkout's run is kept (config/durable.ts `retention`): 30 days by
   * default. Failed, cancelled and dead ones are kept three times as long.
   */
  keepRunsMs: env.get('SHOP_KEEP_RUNS_MS', 30 * 24 * 60 * 60 * 1000),
  /** How often a driving process sweeps expired runs: every minute by default. */
  retentionIntervalMs: env.get('SHOP_RETENTION_INTERVAL_MS', 60_000),
}
