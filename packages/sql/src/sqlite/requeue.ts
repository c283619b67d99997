/**
 * requeueRun on SQLite: inside the caller's BEGIN IMMEDIATE, one conditional UPDATE of the run
 * (failed or dead at the epoch read, else nothing) and, only if it applied, one DELETE of the failed
 * checkpoints at the positions given (one JSON array parameter: one text for any count), and
 * of its queue items, whose grant messages are consumed.
 */
import type { RequeueRequest, RequeueResult, RunStatus } from '@cairn/core/contracts'
import { QUEUE_SLOT_PREFIX } from '@cairn/core/store-kit'
import type { StatementCache } from './statement_cache.ts'
import type { Statements } from './statements.ts'
import { reenterAdmission } from './ops/admission.ts'
import { REQUEUEABLE } from '../shared/requeue.ts'

const REQUEUE_RUN = `UPDATE cairn_runs SET status = 'pending', error = NULL, finished_at = NULL,
    available_at = ?, waiting_on = NULL, park_reason = NULL, lease_epoch = lease_epoch + 1,
    recoveries = 0, updated_at = ?
    WHERE id = ? AND status IN ${REQUEUEABLE} AND lease_epoch = ? RETURNING key, lease_epoch`

// Deleted, consumed ones too: their dedupe ids would swallow the grants its replay asks for
// again (the same positions and attempts).
const FORGET_GRANTS = `DELETE FROM cairn_messages WHERE run_key = ? AND name LIKE ?`

const RESET_POSITIONS = `DELETE FROM cairn_checkpoints
    WHERE run_key = ? AND status = 'failed' AND seq IN (SELECT value FROM json_each(?))`

export function requeueRun(
  s: Statements,
  cache: StatementCache,
  request: RequeueRequest,
): RequeueResult {
  const { runId, epoch, resetSeqs, now } = request
  const row = cache.get('requeue:run', () => REQUEUE_RUN).get(now, now, runId, epoch) as
    { key: number; lease_epoch: number } | undefined
  if (row === undefined) return notRequeued(s, runId)
  const positionsReset =
    resetSeqs.length === 0
      ? 0
      : Number(
          cache.get('requeue:reset', () => RESET_POSITIONS).run(row.key, JSON.stringify(resetSeqs))
            .changes,
        )
  // Its queue items held no slot while it had ended; left by an end that did not name their
  // queues, they would hold one again once it is pending: they go, and so do its unconsumed
  // grant messages (a replay takes a grant message as its slot), consumed ones too.
  s.deleteRunItems.all(row.key)
  cache.get('requeue:grants', () => FORGET_GRANTS).run(row.key, `${QUEUE_SLOT_PREFIX}%`)
  const queued = reenterAdmission(s, runId, now)
  return {
    status: 'applied',
    epoch: Number(row.lease_epoch),
    positionsReset,
    ...(queued ? { queued: true } : {}),
  }
}

function notRequeued(s: Statements, runId: string): RequeueResult {
  const row = s.selectFence.get(runId) as { status: string; lease_epoch: number } | undefined
  if (row === undefined) return { status: 'not_found' }
  return { status: 'refused', current: { status: row.status as RunStatus, epoch: row.lease_epoch } }
}
