/**
 * Schedules on Postgres and MySQL (contracts/schedules.ts): each call's arguments checked as
 * every store checks them (store-kit), then:
 * - putSchedule: Postgres ONE statement (INSERT … ON CONFLICT DO UPDATE … RETURNING); MySQL,
 *   without RETURNING, one transaction: INSERT … ON DUPLICATE KEY UPDATE, then the row read
 *   back. Either way the row's lock orders racing puts: each bumps the revision once.
 * - getSchedule, listSchedules (by id, code point order: `COLLATE "C"` / VARBINARY),
 *   deleteSchedule: one autocommitted statement each.
 * - advanceSchedule: ONE conditional UPDATE, fenced in its WHERE by the lease holder and the
 *   revision (`affected` tells applied from stale, no read); counters added to, lease cleared.
 * - claimDueSchedules: the dialect's ScheduleClaimWriter (Postgres one statement,
 *   postgres/schedule_claims.ts; MySQL a locking read, then the lease:
 *   locked_schedule_claims.ts).
 */
import type {
  ClaimedSchedules,
  ClaimSchedulesRequest,
  ScheduleAdvance,
  ScheduleAdvanceResult,
  ScheduleListQuery,
  SchedulePut,
  ScheduleRecord,
} from '@cairn/core/contracts'
import {
  checkClaimSchedules,
  checkScheduleAdvance,
  checkScheduleId,
  checkScheduleList,
  checkSchedulePut,
} from '@cairn/core/store-kit'
import type { SqlContext } from './context.ts'
import type { SqlSession } from './driver.ts'
import { Params } from './params.ts'
import { SCHEDULE_COLUMNS, toSchedule } from './schedule_rows.ts'

export interface ScheduleClaimWriter {
  /**
   * Leases up to `limit` due schedules of the request's workflows (not paused, `next_at <=
   * now`, unleased or leased until no later than `now`) to its owner until `now + leaseMs`,
   * oldest due first (then by id), skipping rows another transaction holds; returns them as
   * leased, in that order, and the earliest `next_at` of those workflows' other unpaused
   * schedules (ClaimedSchedules.nextAt).
   */
  claim(ctx: SqlContext, request: ClaimSchedulesRequest): Promise<ClaimedSchedules>
}

/** The unpaused rows (`alias.` before the column, or ''): a boolean on Postgres, 0/1 on MySQL. */
export function unpaused(ctx: SqlContext, alias = ''): string {
  return ctx.dialect.name === 'postgres' ? `NOT ${alias}paused` : `${alias}paused = 0`
}

/** `paused` as the dialect binds it. */
function flag(ctx: SqlContext, value: boolean): boolean | number {
  return ctx.dialect.name === 'postgres' ? value : value ? 1 : 0
}

export async function putSchedule(
  ctx: SqlContext,
  put: SchedulePut,
): Promise<ScheduleRecord | null> {
  checkSchedulePut(put)
  if (put.ifRevision !== undefined) return putScheduleIf(ctx, put, put.ifRevision)
  const table = ctx.tables.schedules
  const p = new Params(ctx.dialect)
  const replacesWindow = put.lastWindow !== undefined
  const values = [
    p.add(put.id),
    p.add(put.workflow),
    p.add(put.version),
    p.add(put.spec),
    p.add(flag(ctx, put.paused)),
    p.add(put.nextAt),
    p.add(put.lastWindow ?? null),
  ]
  const postgres = ctx.dialect.name === 'postgres'
  // Postgres names the stored row `s` (the new one is EXCLUDED); MySQL reads it unqualified.
  const insert = `INSERT INTO ${table}${postgres ? ' AS s' : ''} (id, workflow, version, spec, paused, next_at,
      last_window, last_run_id, buffered_window, fired, skipped, revision, created_at, updated_at,
      lease_owner, lease_until)
    VALUES (${values.join(', ')}, NULL, NULL, 0, 0, 1, ${p.add(put.now)}, ${p.add(put.now)},
      NULL, NULL)`
  if (postgres) {
    const replace = p.add(replacesWindow)
    const text = `${insert}
      ON CONFLICT (id) DO UPDATE SET workflow = EXCLUDED.workflow, version = EXCLUDED.version,
        spec = EXCLUDED.spec, paused = EXCLUDED.paused, next_at = EXCLUDED.next_at,
        last_window = CASE WHEN ${replace} THEN EXCLUDED.last_window ELSE s.last_window END,
        buffered_window = CASE WHEN ${replace} THEN NULL ELSE s.buffered_window END,
        revision = s.revision + 1, updated_at = EXCLUDED.updated_at,
        lease_owner = NULL, lease_until = NULL
      RETURNING ${SCHEDULE_COLUMNS}`
    const { rows } = await ctx.pool.query(p.statement(text, true))
    return toSchedule(rows[0] as unknown[])
  }
  // MySQL assigns left to right, each reading the row as the assignments before it left it:
  // every assignment here reads only its own column's old value.
  const text = `${insert}
    ON DUPLICATE KEY UPDATE workflow = VALUES(workflow), version = VALUES(version),
      spec = VALUES(spec), paused = VALUES(paused), next_at = VALUES(next_at),
      last_window = IF(${p.add(replacesWindow ? 1 : 0)}, VALUES(last_window), last_window),
      buffered_window = IF(${p.add(replacesWindow ? 1 : 0)}, NULL, buffered_window),
      revision = revision + 1, updated_at = VALUES(updated_at),
      lease_owner = NULL, lease_until = NULL`
  return ctx.pool.transaction(async (session) => {
    await session.query(p.statement(text, true))
    return (await readSchedule(ctx, session, put.id)) as ScheduleRecord
  })
}

/**
 * A put with `ifRevision`: one conditional UPDATE (Postgres: RETURNING the row; MySQL: in a
 * transaction, read back when it changed a row); nothing is created.
 */
async function putScheduleIf(
  ctx: SqlContext,
  put: SchedulePut,
  revision: number,
): Promise<ScheduleRecord | null> {
  const p = new Params(ctx.dialect)
  const replace = put.lastWindow !== undefined
  const postgres = ctx.dialect.name === 'postgres'
  // The flag is bound before the value it chooses: MySQL's `?` placeholders follow the text.
  const cond = (yes: () => string, no: string) => {
    const test = postgres ? p.add(replace) : p.add(replace ? 1 : 0)
    const then = yes()
    return postgres
      ? `CASE WHEN ${test} THEN ${then} ELSE ${no} END`
      : `IF(${test}, ${then}, ${no})`
  }
  // MySQL assigns left to right: each assignment reads only its own column's old value.
  const text = `UPDATE ${ctx.tables.schedules} SET workflow = ${p.add(put.workflow)},
      version = ${p.add(put.version)}, spec = ${p.add(put.spec)},
      paused = ${p.add(flag(ctx, put.paused))}, next_at = ${p.add(put.nextAt)},
      last_window = ${cond(() => p.add(put.lastWindow ?? null), 'last_window')},
      buffered_window = ${cond(() => 'NULL', 'buffered_window')},
      revision = revision + 1, updated_at = ${p.add(put.now)}, lease_owner = NULL,
      lease_until = NULL
    WHERE id = ${p.add(put.id)} AND revision = ${p.add(revision)}`
  if (postgres) {
    const { rows } = await ctx.pool.query(
      p.statement(`${text} RETURNING ${SCHEDULE_COLUMNS}`, true),
    )
    return rows[0] === undefined ? null : toSchedule(rows[0] as unknown[])
  }
  return ctx.pool.transaction(async (session) => {
    const { affected } = await session.query(p.statement(text, true))
    return affected === 0 ? null : readSchedule(ctx, session, put.id)
  })
}

export function getSchedule(ctx: SqlContext, id: string): Promise<ScheduleRecord | null> {
  checkScheduleId(id, 'getSchedule')
  return readSchedule(ctx, ctx.pool, id)
}

async function readSchedule(
  ctx: SqlContext,
  session: SqlSession,
  id: string,
): Promise<ScheduleRecord | null> {
  const p = new Params(ctx.dialect)
  const text = `SELECT ${SCHEDULE_COLUMNS} FROM ${ctx.tables.schedules} WHERE id = ${p.add(id)}`
  const [row] = (await session.query(p.statement(text))).rows
  return row === undefined ? null : toSchedule(row)
}

export async function listSchedules(
  ctx: SqlContext,
  query: ScheduleListQuery,
): Promise<ScheduleRecord[]> {
  checkScheduleList(query)
  const p = new Params(ctx.dialect)
  const after = query.after === undefined ? '' : `WHERE id > ${p.add(query.after)}`
  const text = `SELECT ${SCHEDULE_COLUMNS} FROM ${ctx.tables.schedules} ${after}
    ORDER BY id LIMIT ${p.add(query.limit)}`
  return (await ctx.pool.query(p.statement(text))).rows.map((row) => toSchedule(row))
}

export async function deleteSchedule(ctx: SqlContext, id: string): Promise<boolean> {
  checkScheduleId(id, 'deleteSchedule')
  const p = new Params(ctx.dialect)
  const text = `DELETE FROM ${ctx.tables.schedules} WHERE id = ${p.add(id)}`
  return (await ctx.pool.query(p.statement(text, true))).affected > 0
}

export function claimDueSchedules(
  ctx: SqlContext,
  writer: ScheduleClaimWriter,
  request: ClaimSchedulesRequest,
): Promise<ClaimedSchedules> {
  return writer.claim(ctx, checkClaimSchedules(request))
}

export async function advanceSchedule(
  ctx: SqlContext,
  advance: ScheduleAdvance,
): Promise<ScheduleAdvanceResult> {
  checkScheduleAdvance(advance)
  const p = new Params(ctx.dialect)
  // The lease holder's write sets lease_owner from non-NULL to NULL: the row always changes,
  // so MySQL's affected count (changed rows or found rows alike) is 1 exactly when it applied.
  const text = `UPDATE ${ctx.tables.schedules} SET next_at = ${p.add(advance.nextAt)},
      last_window = ${p.add(advance.lastWindow)}, last_run_id = ${p.add(advance.lastRunId)},
      buffered_window = ${p.add(advance.bufferedWindow)},
      fired = fired + ${p.add(advance.fired)}, skipped = skipped + ${p.add(advance.skipped)},
      updated_at = ${p.add(advance.now)}, lease_owner = NULL, lease_until = NULL
    WHERE id = ${p.add(advance.id)} AND lease_owner = ${p.add(advance.owner)}
      AND revision = ${p.add(advance.revision)}`
  const { affected } = await ctx.pool.query(p.statement(text, true))
  return affected > 0 ? 'applied' : 'stale'
}
