/**
 * The portable ScheduleClaimWriter (MySQL, MariaDB; the Postgres store claims in one
 * statement: postgres/schedule_claims.ts). Most calls find nothing due: one plain read of the
 * earliest `next_at` of the claimer's workflows answers them, without a transaction. Otherwise
 * one transaction: a locking read of the due schedules in claim order through the due index,
 * FOR UPDATE SKIP LOCKED (rows a put, an advance or another claim holds are passed over, never
 * waited for; forced through the index so only the rows taken are locked, as locked_claims.ts
 * explains), one UPDATE leasing them by primary key, and the earliest `next_at` of the rest as
 * this transaction leaves it.
 */
import type { ClaimedSchedules, ClaimSchedulesRequest, ScheduleRecord } from '@cairn/core/contracts'
import type { SqlContext } from './context.ts'
import type { SqlSession } from './driver.ts'
import { toSafeIntegerOrNull } from './integers.ts'
import { Params } from './params.ts'
import { SCHEDULE_COLUMNS, toSchedule } from './schedule_rows.ts'
import { unpaused, type ScheduleClaimWriter } from './schedules.ts'

const DUE_INDEX = 'cairn_schedules_due'

export const lockedScheduleClaims: ScheduleClaimWriter = {
  async claim(ctx: SqlContext, request: ClaimSchedulesRequest): Promise<ClaimedSchedules> {
    const next = await nextDueAt(ctx, ctx.pool, request.workflows, [])
    if (next === null || next > request.now) return { claimed: [], nextAt: next }
    return ctx.pool.transaction(async (session) => {
      const due = await lockDue(ctx, session, request)
      if (due.length === 0)
        return { claimed: [], nextAt: await nextDueAt(ctx, session, request.workflows, []) }
      const leaseUntil = request.now + request.leaseMs
      await lease(ctx, session, due, request.owner, leaseUntil)
      const ids = due.map((schedule) => schedule.id)
      return {
        claimed: due.map((schedule) => ({ ...schedule, leaseOwner: request.owner, leaseUntil })),
        nextAt: await nextDueAt(ctx, session, request.workflows, ids),
      }
    })
  },
}

/**
 * The earliest `next_at` of the unpaused schedules of `workflows` other than `except` (leased
 * ones included): the head of the due index; null when there is none.
 */
async function nextDueAt(
  ctx: SqlContext,
  session: SqlSession,
  workflows: readonly string[],
  except: readonly string[],
): Promise<number | null> {
  const p = new Params(ctx.dialect)
  // Placeholders in text order (MySQL binds `?`s by position).
  const mine = ctx.dialect.inList(p, 'workflow', workflows, 'text')
  const others =
    except.length === 0 ? '' : `AND NOT (${ctx.dialect.inList(p, 'id', except, 'text')})`
  const text = `SELECT next_at FROM ${ctx.tables.schedules} ${ctx.dialect.useIndex(DUE_INDEX)}
    WHERE ${unpaused(ctx)} AND next_at IS NOT NULL AND ${mine} ${others}
    ORDER BY next_at LIMIT 1`
  const [row] = (await session.query(p.statement(text))).rows
  return toSafeIntegerOrNull(row?.[0] ?? null, 'next_at')
}

async function lockDue(
  ctx: SqlContext,
  session: SqlSession,
  request: ClaimSchedulesRequest,
): Promise<ScheduleRecord[]> {
  const p = new Params(ctx.dialect)
  const text = `SELECT ${SCHEDULE_COLUMNS} FROM ${ctx.tables.schedules}
    ${ctx.dialect.useIndex(DUE_INDEX)}
    WHERE ${unpaused(ctx)} AND next_at <= ${p.add(request.now)}
      AND (lease_until IS NULL OR lease_until <= ${p.add(request.now)})
      AND ${ctx.dialect.inList(p, 'workflow', request.workflows, 'text')}
    ORDER BY next_at, id LIMIT ${p.add(request.limit)} ${ctx.dialect.lockRowsSkipLocked}`
  const { rows } = await session.query(p.statement(text))
  return rows.map((row) => toSchedule(row))
}

async function lease(
  ctx: SqlContext,
  session: SqlSession,
  due: readonly ScheduleRecord[],
  owner: string,
  leaseUntil: number,
): Promise<void> {
  const p = new Params(ctx.dialect)
  const ids = due.map((schedule) => schedule.id)
  // By primary key, forced: on a small table MariaDB scans it instead, and at REPEATABLE READ
  // that locks every row until commit (locked_batch_claims.ts).
  const text = `UPDATE ${ctx.tables.schedules} ${ctx.dialect.useIndex('PRIMARY')}
    SET lease_owner = ${p.add(owner)}, lease_until = ${p.add(leaseUntil)}
    WHERE ${ctx.dialect.inList(p, 'id', ids, 'text')}`
  await session.query(p.statement(text, true))
}
