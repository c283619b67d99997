/** Span attribute names (`cairn.*`). Run ids are attributes, never span names (cardinality). */
export const ATTR = {
  workflow: 'cairn.workflow',
  version: 'cairn.workflow.version',
  runId: 'cairn.run_id',
  /** The lease epoch of the turn: distinguishes a run's turns. */
  epoch: 'cairn.run.epoch',
  /** How the turn ended: completed, failed, suspended, continued, parked, cancelled, released, lost. */
  turnOutcome: 'cairn.turn.outcome',
  stepName: 'cairn.step.name',
  seq: 'cairn.step.seq',
  attempt: 'cairn.step.attempt',
  /** completed, failed (final), retried (will run again), abandoned (turn ended first). */
  stepOutcome: 'cairn.step.outcome',
  retryDelayMs: 'cairn.step.retry_delay_ms',
  /** On a step span's `log` events (`stepCtx.log`): info, warn or error, and the message. */
  logLevel: 'cairn.log.level',
  logMessage: 'cairn.log.message',
} as const
