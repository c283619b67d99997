/** Bulk run moves an engine makes at boot and on registry changes: each one UPDATE. */
import type { ParkReason, WorkflowKey } from '@cairn/core/contracts'
import { QUEUE_SLOT_PREFIX } from '@cairn/core/store-kit'
import { keyList, type SqlContext } from './context.ts'
import { Params } from './params.ts'

/** Found through the status index (running runs only), not a table scan. */
export async function reclaimOwned(ctx: SqlContext, owner: string, now: number): Promise<number> {
  const p = new Params(ctx.dialect)
  const text = `UPDATE ${ctx.tables.runs} SET available_at = ${p.add(now)}, updated_at = ${p.add(now)}
    WHERE status = 'running' AND available_at IS NOT NULL AND lease_owner = ${p.add(owner)}`
  return (await ctx.pool.query(p.statement(text, true))).affected
}

/** Claimable since `olderThan` and of no runnable version: parked, off the claim queue. */
export async function parkUnrunnable(
  ctx: SqlContext,
  runnable: readonly WorkflowKey[],
  olderThan: number,
  reason: ParkReason,
  now: number,
): Promise<number> {
  const p = new Params(ctx.dialect)
  const text = `UPDATE ${ctx.tables.runs} SET status = 'parked', park_reason = ${p.add(JSON.stringify(reason))},
    available_at = NULL, waiting_on = NULL, updated_at = ${p.add(now)}
    WHERE available_at IS NOT NULL AND available_at <= ${p.add(olderThan)}
    ${runnable.length === 0 ? '' : `AND ${keyList(p, runnable, true)}`}`
  return (await ctx.pool.query(p.statement(text, true))).affected
}

/** Parked runs found through the status index; the reason code is matched inside its JSON. */
export async function unpark(
  ctx: SqlContext,
  keys: readonly WorkflowKey[],
  reasonCode: string,
  now: number,
): Promise<number> {
  if (keys.length === 0) return 0
  const code = ctx.dialect.jsonField('park_reason', 'code')
  const parked = (p: Params) =>
    `status = 'parked' AND ${code} = ${p.add(reasonCode)} AND ${keyList(p, keys)}`
  return ctx.pool.transaction(async (session) => {
    // Their queue items held no slot while parked, and their grant messages go too: each run's
    // replay asks for its slots again (a grant kept through the park could exceed a queue).
    const runs = (p: Params) => `SELECT r.key FROM ${ctx.tables.runs} r WHERE ${parked(p)}`
    const items = new Params(ctx.dialect)
    const drop = `DELETE FROM ${ctx.tables.queueItems} WHERE run_key IN (${runs(items)})`
    await session.query(items.statement(drop, true))
    // Consumed ones too: their dedupe ids would swallow the grants the replay asks for again.
    const grants = new Params(ctx.dialect)
    const forget = `DELETE FROM ${ctx.tables.messages}
      WHERE name LIKE ${grants.add(`${QUEUE_SLOT_PREFIX}%`)} AND run_key IN (${runs(grants)})`
    await session.query(grants.statement(forget, true))
    const p = new Params(ctx.dialect)
    const text = `UPDATE ${ctx.tables.runs} SET status = 'pending', available_at = ${p.add(now)},
      park_reason = NULL, recoveries = 0, updated_at = ${p.add(now)} WHERE ${parked(p)}`
    return (await session.query(p.statement(text, true))).affected
  })
}
