/**
 * Singleton admission on SQLite (CreateRunOp.admission): inside the batch's BEGIN IMMEDIATE,
 * so nothing interleaves. The create has inserted its run; this decides what becomes of it
 * by the one rule every store applies (decideAdmission), with counts read from the runs.
 */
import type { Admission, CreateRunOp, OpResult } from '@cairn/core/contracts'
import { decideAdmission, queuedWaitingOn } from '@cairn/core/store-kit'
import type { Statements } from '../statements.ts'

/**
 * The result of a create that inserted its run: `applied` as given, `applied` queued (the
 * run now waits in its key's queue), or `full` (the run is deleted again: nothing written).
 */
export function admitCreated(
  s: Statements,
  op: CreateRunOp & { admission: Admission },
  applied: OpResult,
  now: number,
): OpResult {
  const { scope, key, limit, inheritFrom } = op.admission
  const id = op.run.id
  s.upsertAdmissionKey.run(scope, key, limit)
  // A successor takes its predecessor's slot as it is: nothing to promote into, nothing to count.
  const inherits =
    inheritFrom !== undefined && s.holdsAdmission.get(inheritFrom, scope, key, id) !== undefined
  if (inherits) return applied
  // Waiters first (a raised limit, a finish that did not name the key): start order holds.
  let counts = countAdmission(s, scope, key, id)
  if (counts.queued > 0 && counts.admitted < limit) {
    promoteAdmission(s, scope, key, now, id)
    counts = countAdmission(s, scope, key, id)
  }
  const outcome = decideAdmission(op.admission, counts, false)
  if (outcome.kind === 'admitted') return applied
  if (outcome.kind === 'full') {
    s.deleteNewRun.run(id)
    return outcome.result
  }
  s.queueRun.run(queuedWaitingOn(key), scope, key, id)
  s.bumpAdmissionSeq.run(scope, key)
  if (op.claim !== undefined) s.unclaimNewRun.run(id)
  return { status: 'applied', epoch: 0, queued: true }
}

function countAdmission(s: Statements, scope: string, key: string, except: string) {
  const row = s.countAdmission.get(scope, key, except) as { admitted: number; queued: number }
  return { admitted: Number(row.admitted), queued: Number(row.queued) }
}

/**
 * A failed run just requeued (`pending`) re-enters the key it holds: it keeps the status when
 * a slot is free and nobody waits, else it goes to the back of the queue — never refused (an
 * operator's requeue must not lose the run). True when queued.
 */
export function reenterAdmission(s: Statements, runId: string, now: number): boolean {
  const held = s.selectAdmission.get(runId) as
    { admission_scope: string; admission_key: string; lim: number } | undefined
  if (held === undefined) return false
  const { admission_scope: scope, admission_key: key } = held
  promoteAdmission(s, scope, key, now, runId)
  const { admitted, queued } = countAdmission(s, scope, key, runId)
  if (admitted < Number(held.lim) && queued === 0) return false
  s.queueRun.run(queuedWaitingOn(key), scope, key, runId)
  s.bumpAdmissionSeq.run(scope, key)
  return true
}

/** The key's oldest queued runs into its free slots, claimable at `now`; `except` not counted. */
export function promoteAdmission(
  s: Statements,
  scope: string,
  key: string,
  now: number,
  except = '',
): number {
  // Most ends free a slot nobody waits for: one index probe instead of the promotion's count.
  if (s.anyQueued.get(scope, key) === undefined) return 0
  return Number(
    s.promoteAdmission.run(now, now, scope, key, scope, key, scope, key, except).changes,
  )
}

/**
 * Promote into the slot a run freed, when it held one (a cancel, a finish naming its key): the
 * op's result, marked `promoted` when runs were.
 */
export function promoteFreed(
  s: Statements,
  admission: { scope: string; key: string } | null | undefined,
  now: number,
  result: OpResult,
): OpResult {
  if (admission == null || result.status !== 'applied') return result
  return promoteAdmission(s, admission.scope, admission.key, now) > 0
    ? { ...result, promoted: true }
    : result
}
