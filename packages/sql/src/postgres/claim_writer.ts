/**
 * claimRuns in ONE autocommitted statement:
 * - `o` (the oldest share, ClaimRequest.oldest) walks the claim index (`available_at`,
 *   partial) for due runs of the runnable versions, oldest first;
 * - `lv` lists the priority levels of the claimable runs from the highest down, lazily, one
 *   backward probe of `cairn_runs_priority` per level (a recursive CTE: Postgres 15 has no
 *   skip scan), and `p` reads each level's due runs in `available_at` order through the same
 *   index, leaving out `o`'s (SKIP LOCKED does not skip a statement's own locks). The outer
 *   LIMIT stops pulling once the claim is full, so levels below are never probed and no row
 *   past the limit is locked (checked with EXPLAIN ANALYZE: the recursion and the later
 *   lateral reads show "never executed");
 * - both lock FOR NO KEY UPDATE SKIP LOCKED: rows another claim (or a batch writing to a
 *   running run) holds are skipped, not waited for, so concurrent claims never take the same
 *   run and never queue behind each other;
 * - `u` leases them (epoch + 1, turns + 1, owner, expiry; recoveries + 1 for a `running` one, a
 *   takeover: SET reads the row as it was) and returns them as stored. The keys
 *   are matched as `= ANY(ARRAY(…))`, which plans as index lookups even with a generic plan;
 * - `n` is the earliest `available_at` among the runnable runs not taken, read through the
 *   claim index (first entry outside `c`).
 * The result has one row per claimed run (or one row of NULLs), each carrying `n`, and the
 * status and owner read before the update (a `running` one is a lease taken over).
 */
import { claimResult, oldestShare } from '@cairn/core/store-kit'
import type { ClaimRequest, ClaimResult, RunRecord } from '@cairn/core/contracts'
import type { ClaimWriter } from '../shared/claim_runs.ts'
import { keyList, type SqlContext } from '../shared/context.ts'
import { toSafeIntegerOrNull } from '../shared/integers.ts'
import { Params } from '../shared/params.ts'
import { runColumns, toRunRecord } from '../shared/row_mapping.ts'

export const postgresClaims: ClaimWriter = {
  async claim(ctx: SqlContext, request: ClaimRequest): Promise<ClaimResult> {
    const { rows } = await ctx.pool.query(claimStatement(ctx, request))
    const next = toSafeIntegerOrNull(rows[0]?.[0] ?? null, 'available_at')
    const taken = rows.filter((row) => row[1] !== null)
    const claimed = taken.map((row) => toRunRecord(row, 1))
    // The last two columns are c's status and lease owner: as they were before the claim.
    const recovered = taken.flatMap((row, i) =>
      row[row.length - 2] === 'running'
        ? [{ runId: (claimed[i] as RunRecord).id, previousOwner: row[row.length - 1] as string }]
        : [],
    )
    return claimResult(claimed, next, recovered)
  },
}

function claimStatement(ctx: SqlContext, request: ClaimRequest) {
  const { runs } = ctx.tables
  const p = new Params(ctx.dialect)
  const now = p.add(request.now, 'bigint')
  const oldest = oldestShare(request)
  const lock = 'FOR NO KEY UPDATE SKIP LOCKED'
  const text = `WITH RECURSIVE o AS MATERIALIZED (
    SELECT key, available_at, status, lease_owner FROM ${runs}
    WHERE available_at <= ${now} AND ${keyList(p, request.runnable)}
    ORDER BY available_at LIMIT ${p.add(oldest)} ${lock}
  ), lv(level) AS (
    (SELECT priority FROM ${runs} WHERE available_at IS NOT NULL ORDER BY priority DESC LIMIT 1)
    UNION ALL
    SELECT (SELECT r.priority FROM ${runs} r WHERE r.available_at IS NOT NULL AND r.priority < lv.level
      ORDER BY r.priority DESC LIMIT 1) FROM lv WHERE lv.level IS NOT NULL
  ), pr AS MATERIALIZED (
    SELECT x.* FROM lv CROSS JOIN LATERAL (
      SELECT r.key, r.available_at, r.status, r.lease_owner FROM ${runs} r
      WHERE r.priority = lv.level AND r.available_at <= ${now} AND ${keyList(p, request.runnable)}
        AND r.key <> ALL(ARRAY(SELECT key FROM o))
      ORDER BY r.available_at LIMIT ${p.add(request.limit - oldest)} ${lock}
    ) x WHERE lv.level IS NOT NULL LIMIT ${p.add(request.limit - oldest)}
  ), c AS (
    SELECT key, available_at, status, lease_owner, 0 AS part FROM o
    UNION ALL SELECT key, available_at, status, lease_owner, 1 FROM pr
  ), u AS (
    UPDATE ${runs} r SET status = 'running', lease_owner = ${p.add(request.owner)},
      lease_epoch = r.lease_epoch + 1, turns = r.turns + 1,
      recoveries = r.recoveries + CASE WHEN r.status = 'running' THEN 1 ELSE 0 END,
      available_at = ${p.add(request.now + request.leaseMs, 'bigint')}, waiting_on = NULL, updated_at = ${now}
    WHERE r.key = ANY(ARRAY(SELECT key FROM c))
    RETURNING r.key, ${runColumns('r')}
  ), n AS (
    SELECT available_at FROM ${runs}
    WHERE available_at IS NOT NULL AND ${keyList(p, request.runnable)}
      AND key <> ALL(ARRAY(SELECT key FROM c))
    ORDER BY available_at LIMIT 1
  )
  SELECT (SELECT available_at FROM n), ${runColumns('u')}, c.status, c.lease_owner
  FROM (VALUES (0)) AS one(x) LEFT JOIN (u JOIN c ON c.key = u.key) ON true
  ORDER BY c.part, (CASE WHEN c.part = 1 THEN u.priority END) DESC, c.available_at, u.key`
  return p.statement(text, true)
}
