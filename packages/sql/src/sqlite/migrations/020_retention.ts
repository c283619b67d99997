import type { Migration } from './migration.ts'

/**
 * Retention (StateStore.retentionCutoff, expiredRuns; docs/design/retention.md): finished runs
 * in finish order, one index range per status — `cairn_runs_finished (status, finished_at, id)`
 * for a policy over every workflow, `cairn_runs_workflow_finished (workflow, status,
 * finished_at, id)` for one workflow's. Partial (`finished_at IS NOT NULL`): open runs, whose
 * rows change on every step, are not in them, so only the write that finishes a run (and the
 * requeue that reopens it) touches them. Built over existing rows once, at this migration.
 */
export const retention: Migration = {
  revision: 20,
  name: 'retention',
  sql: `
CREATE INDEX cairn_runs_finished ON cairn_runs (status, finished_at, id)
  WHERE finished_at IS NOT NULL;
CREATE INDEX cairn_runs_workflow_finished ON cairn_runs (workflow, status, finished_at, id)
  WHERE finished_at IS NOT NULL;
`,
}
