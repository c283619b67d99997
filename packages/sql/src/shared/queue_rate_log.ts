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
import type { GroupedWrite } from './write_group.ts'

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
  let oldest: { grant: number; at: number } | undefined
  if (from <= to) {
    // The range, and the lowest-numbered row the log holds (a grant looked back at may have
    // been pruned: queue_rate.ts counts it as made then) — one statement, two key seeks.
    const p = new Params(ctx.dialect)
    const log = ctx.tables.queueGrantLog
    const text = `SELECT grant_no, granted_at FROM ${log}
      WHERE queue = ${p.add(name)} AND (grant_no BETWEEN ${p.add(from)} AND ${p.add(to)}
        OR grant_no = (SELECT MIN(l.grant_no) FROM ${log} l WHERE l.queue = ${p.add(name)}))`
    for (const [grantNo, grantedAt] of (await session.query(p.statement(text))).rows) {
      const grant = toSafeInteger(grantNo, 'grant_no')
      const at = toSafeInteger(grantedAt, 'granted_at')
      times.set(grant, at)
      if (oldest === undefined || grant < oldest.grant) oldest = { grant, at }
    }
  }
  return rateAllowance(
    grants,
    rate,
    count,
    now,
    (grant) => times.get(grant),
    () => oldest?.at,
  )
}

/**
 * The writes logging the grants numbered `first + 1` … `last`, all made at `now` (one
 * INSERT), then deleting the rows the rate no longer looks back at (prunableGrants; one
 * DELETE, none when no row can be old enough). Independent writes (write_group.ts): the
 * DELETE never reaches a row the INSERT adds, logged at `now`, after the DELETE's bound.
 */
export function logGrants(
  ctx: SqlContext,
  queue: { name: string; rate: QueueRateLimit },
  first: number,
  last: number,
  now: number,
): GroupedWrite[] {
  const log = ctx.tables.queueGrantLog
  const grantNos: number[][] = []
  for (let grant = first + 1; grant <= last; grant++) grantNos.push([grant])
  const insert = (p: Params) => {
    const name = p.add(queue.name) // bound first: they come first in the text (`?` is positional)
    const at = p.add(now)
    const source = ctx.dialect.rowSource(p, 'v', [['grant_no', 'bigint']], grantNos)
    return `INSERT INTO ${log} (queue, grant_no, granted_at)
      SELECT ${name}, v.grant_no, ${at} FROM ${source}`
  }
  const { below, before } = prunableGrants(last, queue.rate, now)
  if (below < 1) return [insert]
  const prune = (p: Params) => `DELETE FROM ${log} WHERE queue = ${p.add(queue.name)}
    AND grant_no <= ${p.add(below)} AND granted_at <= ${p.add(before)}`
  return [insert, prune]
}
