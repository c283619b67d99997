/**
 * A claim's choice when more runs are due than it takes, inside the claim's transaction: the
 * oldest share (ClaimRequest.oldest) locked by `available_at` (`lockOldest`), then the rest
 * read level by level from the highest priority down, through `cairn_runs_priority`, each
 * level in `available_at` order, FOR UPDATE SKIP LOCKED, at most as many as the claim still
 * takes, so no row is locked and left. InnoDB returns rows this transaction already holds:
 * the oldest share's are left out by key (in the statement, so its LIMIT counts only rows
 * taken). Levels are found one backward index probe at a
 * time. MySQL has no partial index, so there a level probe also finds levels whose runs have
 * all ended (under a NULL `available_at`): each costs one more probe and one empty range read;
 * there are at most 2,001 levels, in practice a handful.
 */
import { MAX_PRIORITY, oldestShare } from '@cairn/core/store-kit'
import type { ClaimRequest, RunRecord } from '@cairn/core/contracts'
import { keyList, type SqlContext } from './context.ts'
import type { SqlSession } from './driver.ts'
import { toSafeInteger } from './integers.ts'
import { Params } from './params.ts'
import { runColumns, toRunRecord } from './row_mapping.ts'

export interface Due {
  key: number
  run: RunRecord
}

/** A row of `SELECT r.key, <runColumns('r')>`. */
export function toDue(row: readonly unknown[]): Due {
  return { key: toSafeInteger(row[0], 'key'), run: toRunRecord(row, 1) }
}

export async function lockByPriority(
  ctx: SqlContext,
  session: SqlSession,
  request: ClaimRequest,
  lockOldest: (count: number) => Promise<Due[]>,
): Promise<Due[]> {
  const share = oldestShare(request)
  const oldest = share === 0 ? [] : await lockOldest(share)
  const taken = [...oldest]
  const keys = oldest.map((d) => d.key)
  let level = taken.length < request.limit ? await nextLevel(ctx, session, MAX_PRIORITY + 1) : null
  while (level !== null && taken.length < request.limit) {
    taken.push(
      ...(await lockLevel(ctx, session, request, level, keys, request.limit - taken.length)),
    )
    // Full: the levels below are never probed.
    if (taken.length < request.limit) level = await nextLevel(ctx, session, level)
  }
  return taken
}

async function nextLevel(
  ctx: SqlContext,
  session: SqlSession,
  below: number,
): Promise<number | null> {
  const p = new Params(ctx.dialect)
  // Postgres' index is partial (claimable runs only) and is used only under its condition;
  // MySQL's holds every run, and the condition would walk a level's ended runs.
  const claimable = ctx.dialect.name === 'postgres' ? 'AND r.available_at IS NOT NULL' : ''
  const text = `SELECT r.priority FROM ${ctx.tables.runs} r ${ctx.dialect.useIndex('cairn_runs_priority')}
    WHERE r.priority < ${p.add(below)} ${claimable} ORDER BY r.priority DESC LIMIT 1`
  const { rows } = await session.query(p.statement(text))
  const found = rows[0]?.[0]
  return found === undefined || found === null ? null : toSafeInteger(found, 'priority')
}

async function lockLevel(
  ctx: SqlContext,
  session: SqlSession,
  request: ClaimRequest,
  level: number,
  taken: readonly number[],
  count: number,
): Promise<Due[]> {
  const p = new Params(ctx.dialect)
  // Bound in text order: `?` placeholders are positional.
  const at = `r.priority = ${p.add(level)} AND r.available_at <= ${p.add(request.now)}`
  const runnable = keyList(p, request.runnable)
  const notTaken =
    taken.length === 0 ? '' : `AND NOT (${ctx.dialect.inList(p, 'r.key', taken, 'bigint')})`
  const index = ctx.dialect.useIndex('cairn_runs_priority')
  const text = `SELECT r.key, ${runColumns('r')} FROM ${ctx.tables.runs} r ${index}
    WHERE ${at} AND ${runnable} ${notTaken}
    ORDER BY r.available_at LIMIT ${p.add(count)} ${ctx.dialect.lockRowsSkipLocked}`
  const { rows } = await session.query(p.statement(text))
  return rows.map(toDue)
}
