/**
 * A rate-limited queue's grant log (QueueRateLimit, migration 15): the `now` of each grant
 * under its grant number (QueueRow.grants), read, written and pruned by the queue's grant
 * pass under the queue row's lock. The rule that decides from it is core's (queue_rate.ts);
 * these are its statements. A queue without a rate has no log row written for its grants and
 * runs none of these. Placeholders are bound in text order (MySQL's are positional).
 */
import type { QueueRateLimit } from '@cairn/core/contracts'
import { prunableGrants, rateAllowance, rateLogRange } from '@cairn/core/store-kit'
import type { SqlContext } from './context.ts'
import type { SqlSession } from './driver.ts'
import { toSafeInteger } from './integers.ts'
import { Params } from './params.ts'

/**
 * How many of the queue's next `count` grants its rate allows at `now`, and when the first it
 * stops becomes possible (null: none stopped) — from the log rows the rule looks back at, read
 * as one range of the log's primary key.
 */
export async function rateAllows(
  ctx: SqlContext,
  session: SqlSession,
  queue: { name: string; grants: number; rate: QueueRateLimit },
  count: number,
  now: number,
): Promise<{ allowed: number; retryAt: number | null }> {
  const { name, grants, rate } = queue
  const { from, to } = rateLogRange(grants, rate, count)
  const times = new Map<number, number>()
  if (from <= to) {
    const p = new Params(ctx.dialect)
    const text = `SELECT grant_no, granted_at FROM ${ctx.tables.queueGrantLog}
      WHERE queue = ${p.add(name)} AND grant_no BETWEEN ${p.add(from)} AND ${p.add(to)}`
    for (const [grant, at] of (await session.query(p.statement(text))).rows)
      times.set(toSafeInteger(grant, 'grant_no'), toSafeInteger(at, 'granted_at'))
  }
  return rateAllowance(grants, rate, count, now, (grant) => times.get(grant))
}

/**
 * Logs the grants numbered `first + 1` … `last`, all made at `now` (one INSERT), then deletes
 * the rows the rate no longer looks back at (prunableGrants; one DELETE, none when no row can
 * be old enough).
 */
export async function logGrants(
  ctx: SqlContext,
  session: SqlSession,
  queue: { name: string; rate: QueueRateLimit },
  first: number,
  last: number,
  now: number,
): Promise<void> {
  const log = ctx.tables.queueGrantLog
  const grantNos: number[][] = []
  for (let grant = first + 1; grant <= last; grant++) grantNos.push([grant])
  const p = new Params(ctx.dialect)
  const name = p.add(queue.name) // bound first: they come first in the text (`?` is positional)
  const at = p.add(now)
  const source = ctx.dialect.rowSource(p, 'v', [['grant_no', 'bigint']], grantNos)
  const text = `INSERT INTO ${log} (queue, grant_no, granted_at)
    SELECT ${name}, v.grant_no, ${at} FROM ${source}`
  await session.query(p.statement(text, true))
  const { below, before } = prunableGrants(last, queue.rate, now)
  if (below < 1) return
  const d = new Params(ctx.dialect)
  const prune = `DELETE FROM ${log} WHERE queue = ${d.add(queue.name)}
    AND grant_no <= ${d.add(below)} AND granted_at <= ${d.add(before)}`
  await session.query(d.statement(prune, true))
}
