/** Bulk run moves an engine makes at boot and on registry changes: each one UPDATE. */
import type { ParkReason, WorkflowKey } from '@cairn/core/contracts'
import { QUEUE_SLOT_PREFIX } from '@cairn/core/store-kit'
import type { StatementCache } from './statement_cache.ts'
import type { Statements } from './statements.ts'
import { keyRows, keyValues } from './workflow_keys.ts'

export function reclaimOwned(s: Statements, owner: string, now: number): number {
  return Number(s.reclaimOwned.run(now, now, owner).changes)
}

/** Claimable since `olderThan` and of no runnable version: parked, off the claim queue. */
export function parkUnrunnable(
  cache: StatementCache,
  runnable: readonly WorkflowKey[],
  olderThan: number,
  reason: ParkReason,
  now: number,
): number {
  const statement = cache.get(`park:${runnable.length}`, () => parkSql(runnable.length))
  return Number(
    statement.run(JSON.stringify(reason), now, olderThan, ...keyValues(runnable)).changes,
  )
}

function parkSql(keyCount: number): string {
  const notRunnable =
    keyCount === 0 ? '' : `AND (workflow, version) NOT IN (VALUES ${keyRows(keyCount)})`
  return `UPDATE cairn_runs SET status = 'parked', park_reason = ?, available_at = NULL, waiting_on = NULL,
    updated_at = ? WHERE available_at IS NOT NULL AND available_at <= ? ${notRunnable}`
}

/** Parked runs found through the status index; the reason code is matched inside its JSON. */
export function unpark(
  cache: StatementCache,
  keys: readonly WorkflowKey[],
  reasonCode: string,
  now: number,
): number {
  if (keys.length === 0) return 0
  // Their queue items held no slot while parked, and their grant messages go too: each run's
  // replay asks for its slots again (a grant kept through the park could exceed a queue).
  const n = keys.length
  const values = keyValues(keys)
  cache.get(`unpark:items:${n}`, () => dropItemsSql(n)).run(reasonCode, ...values)
  cache.get(`unpark:grants:${n}`, () => forgetGrantsSql(n)).run(reasonCode, ...values)
  const statement = cache.get(`unpark:${n}`, () => unparkSql(n))
  return Number(statement.run(now, now, reasonCode, ...values).changes)
}

function unparkSql(keyCount: number): string {
  return `UPDATE cairn_runs SET status = 'pending', available_at = ?, park_reason = NULL,
    recoveries = 0, updated_at = ? WHERE ${parkedWith(keyCount)}`
}

/** Parked with the reason code and of one of the versions (code, then the key values). */
function parkedWith(keyCount: number): string {
  return `status = 'parked' AND park_reason ->> '$.code' = ? AND (workflow, version) IN (VALUES ${keyRows(keyCount)})`
}

function dropItemsSql(keyCount: number): string {
  return `DELETE FROM cairn_queue_items WHERE run_key IN
    (SELECT key FROM cairn_runs WHERE ${parkedWith(keyCount)})`
}

/**
 * Every grant message of the runs, consumed ones too: their dedupe ids would swallow the
 * grants the replay asks for again (the same positions and attempts).
 */
function forgetGrantsSql(keyCount: number): string {
  return `DELETE FROM cairn_messages WHERE name LIKE '${QUEUE_SLOT_PREFIX}%'
    AND run_key IN (SELECT key FROM cairn_runs WHERE ${parkedWith(keyCount)})`
}
