/**
 * The portable ClaimWriter, in one transaction. First a plain (non-locking) read of the first
 * limit + 1 due runs of the runnable versions by `available_at`. At most `limit` due: the
 * claim takes them all, whatever their priority, locking exactly those rows (the common,
 * idle case). More: it takes the oldest share and the rest by priority (locked_priority.ts).
 * Every locking read is FOR UPDATE SKIP LOCKED (rows another claim or batch holds are passed
 * over, never waited for) and locks only rows the claim takes: a claim that locked rows it
 * then left (read by age, taken by priority) would hide them from concurrent claims (found
 * by the racing-claims conformance test: four claims of five took 17 of 30 due runs). Then
 * one UPDATE leasing them by key; the records as stored computed from what was read (the
 * UPDATE's assignments are fixed, so nothing is read back); then the earliest `available_at`
 * among the runnable runs not taken. For servers without UPDATE … RETURNING (MySQL,
 * MariaDB); Postgres claims in one statement (claim_writer.ts).
 */
import { claimResult, inClaimOrder, oldestShare } from '@cairn/core/store-kit'
import type { ClaimRequest, ClaimResult, RunRecord } from '@cairn/core/contracts'
import type { ClaimWriter } from './claim_runs.ts'
import { keyList, type SqlContext } from './context.ts'
import type { SqlSession } from './driver.ts'
import { toSafeInteger, toSafeIntegerOrNull } from './integers.ts'
import { Params } from './params.ts'
import { runColumns } from './row_mapping.ts'
import { lockByPriority, toDue, type Due } from './locked_priority.ts'

export const lockedClaims: ClaimWriter = {
  claim: (ctx: SqlContext, request: ClaimRequest): Promise<ClaimResult> =>
    ctx.pool.transaction(async (session) => {
      const seen = await dueKeys(ctx, session, request)
      const due =
        seen.length > request.limit
          ? await lockByPriority(ctx, session, request, (count) =>
              lockDue(ctx, session, request, count),
            )
          : inClaimOrder(
              await lockKeys(ctx, session, seen, request),
              oldestShare(request),
              (d) => d.run.priority,
            )
      const keys = due.map((d) => d.key)
      if (keys.length > 0) await lease(ctx, session, keys, request)
      const recovered = due
        .filter((d) => d.run.status === 'running')
        .map((d) => ({ runId: d.run.id, previousOwner: d.run.leaseOwner as string }))
      const claimed = due.map((d) => leased(d.run, request))
      return claimResult(claimed, await nextAvailable(ctx, session, keys, request), recovered)
    }),
}

/** The keys of the first limit + 1 due runs by `available_at`, read without locking. */
async function dueKeys(
  ctx: SqlContext,
  session: SqlSession,
  request: ClaimRequest,
): Promise<number[]> {
  const p = new Params(ctx.dialect)
  const text = `SELECT r.key FROM ${ctx.tables.runs} r ${ctx.dialect.useIndex('cairn_runs_claimable')}
    WHERE r.available_at <= ${p.add(request.now)} AND ${keyList(p, request.runnable)}
    ORDER BY r.available_at LIMIT ${p.add(request.limit + 1)}`
  const { rows } = await session.query(p.statement(text))
  return rows.map((row) => toSafeInteger(row[0], 'key'))
}

/** Locks the runs of `keys` still due, skipping rows another transaction holds; by age. */
async function lockKeys(
  ctx: SqlContext,
  session: SqlSession,
  keys: readonly number[],
  request: ClaimRequest,
): Promise<Due[]> {
  if (keys.length === 0) return []
  const p = new Params(ctx.dialect)
  const text = `SELECT r.key, ${runColumns('r')} FROM ${ctx.tables.runs} r
    WHERE ${ctx.dialect.inList(p, 'r.key', keys, 'bigint')} AND r.available_at <= ${p.add(request.now)}
    ORDER BY r.available_at ${ctx.dialect.lockRowsSkipLocked}`
  const { rows } = await session.query(p.statement(text))
  return rows.map(toDue)
}

/** Locks up to `count` due runs by `available_at`, skipping rows another transaction holds. */
async function lockDue(
  ctx: SqlContext,
  session: SqlSession,
  request: ClaimRequest,
  count: number,
): Promise<Due[]> {
  const p = new Params(ctx.dialect)
  // Forced on MySQL: on a small table MariaDB 10.11 picks a full scan and a sort, which
  // locks every due row (found by the racing-claims test: one claim of 5 left 3 concurrent
  // claims nothing of 30 due runs).
  const index = ctx.dialect.useIndex('cairn_runs_claimable')
  const text = `SELECT r.key, ${runColumns('r')} FROM ${ctx.tables.runs} r ${index}
    WHERE r.available_at <= ${p.add(request.now)} AND ${keyList(p, request.runnable)}
    ORDER BY r.available_at LIMIT ${p.add(count)} ${ctx.dialect.lockRowsSkipLocked}`
  const { rows } = await session.query(p.statement(text))
  return rows.map(toDue)
}

async function lease(
  ctx: SqlContext,
  session: SqlSession,
  keys: readonly number[],
  request: ClaimRequest,
): Promise<void> {
  const p = new Params(ctx.dialect)
  // Qualified `r.key`: KEY is a reserved word in MySQL, allowed only after a dot. Recoveries
  // first: MySQL assigns left to right, so it must read the status before it is set (a claim
  // of a `running` run is a takeover: RunRecord.recoveries).
  const text = `UPDATE ${ctx.tables.runs} r SET
    recoveries = CASE WHEN status = 'running' THEN recoveries + 1 ELSE recoveries END,
    status = 'running', lease_owner = ${p.add(request.owner)},
    lease_epoch = lease_epoch + 1, turns = turns + 1,
    available_at = ${p.add(request.now + request.leaseMs)}, waiting_on = NULL,
    updated_at = ${p.add(request.now)} WHERE ${ctx.dialect.inList(p, 'r.key', keys, 'bigint')}`
  await session.query(p.statement(text))
}

function leased(run: RunRecord, request: ClaimRequest): RunRecord {
  return {
    ...run,
    status: 'running',
    leaseOwner: request.owner,
    leaseEpoch: run.leaseEpoch + 1,
    turns: run.turns + 1,
    recoveries: run.status === 'running' ? run.recoveries + 1 : run.recoveries,
    availableAt: request.now + request.leaseMs,
    waitingOn: null,
    updatedAt: request.now,
  }
}

async function nextAvailable(
  ctx: SqlContext,
  session: SqlSession,
  claimed: readonly number[],
  request: ClaimRequest,
): Promise<number | null> {
  const p = new Params(ctx.dialect)
  // Bound in text order: `?` placeholders are positional.
  const runnable = keyList(p, request.runnable)
  const notClaimed =
    claimed.length === 0 ? '' : `AND NOT (${ctx.dialect.inList(p, 'r.key', claimed, 'bigint')})`
  const text = `SELECT r.available_at FROM ${ctx.tables.runs} r
    WHERE r.available_at IS NOT NULL AND ${runnable} ${notClaimed}
    ORDER BY r.available_at LIMIT 1`
  const { rows } = await session.query(p.statement(text))
  return toSafeIntegerOrNull(rows[0]?.[0] ?? null, 'available_at')
}
