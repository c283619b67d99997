/**
 * The claim when more runs are due than it can take: the oldest share (given, read by the
 * caller in `available_at` order), then priority levels from the highest down, each read in
 * `available_at` order through `cairn_runs_priority`. Levels are found one index probe at a
 * time (the next lower priority with any claimable run), so a level's sleeping runs and live
 * leases are never walked: a claim costs one probe and one read per level it visits.
 */
import { MAX_PRIORITY } from '@cairn/core/store-kit'
import type { ClaimRequest } from '@cairn/core/contracts'
import type { StatementCache } from './statement_cache.ts'
import { keyRows, keyValues } from './workflow_keys.ts'

export interface Candidate {
  id: string
  available_at: number
  priority: number
  /** Before the claim: `running` means a lease is taken over (ClaimResult.recovered). */
  status: string
  lease_owner: string | null
}

export function byPriority(
  cache: StatementCache,
  request: ClaimRequest,
  oldest: readonly Candidate[],
): Candidate[] {
  const taken = [...oldest]
  const ids = new Set(oldest.map((c) => c.id))
  let level = taken.length < request.limit ? nextLevel(cache, MAX_PRIORITY + 1) : null
  while (level !== null && taken.length < request.limit) {
    // The oldest share may hold runs of this level: read past them.
    const wanted = request.limit - taken.length + oldest.length
    for (const c of dueAtLevel(cache, request, level, wanted)) {
      if (taken.length === request.limit) break
      if (!ids.has(c.id)) taken.push(c)
    }
    if (taken.length < request.limit) level = nextLevel(cache, level)
  }
  return taken
}

/** The highest priority below `below` that any claimable run has, or null. */
function nextLevel(cache: StatementCache, below: number): number | null {
  const statement = cache.get('claim:level', () => LEVEL_SQL)
  const row = statement.get(below) as { priority: number } | undefined
  return row?.priority ?? null
}

const LEVEL_SQL = `SELECT priority FROM cairn_runs INDEXED BY cairn_runs_priority
  WHERE available_at IS NOT NULL AND priority < ? ORDER BY priority DESC LIMIT 1`

function dueAtLevel(
  cache: StatementCache,
  request: ClaimRequest,
  level: number,
  count: number,
): Candidate[] {
  const { runnable, now } = request
  const statement = cache.get(`claim:at-level:${runnable.length}`, () => levelSql(runnable.length))
  return statement.all(level, now, ...keyValues(runnable), count) as unknown as Candidate[]
}

function levelSql(keyCount: number): string {
  return `SELECT id, available_at, priority, status, lease_owner FROM cairn_runs INDEXED BY cairn_runs_priority
    WHERE available_at IS NOT NULL AND priority = ? AND available_at <= ?
      AND (workflow, version) IN (VALUES ${keyRows(keyCount)})
    ORDER BY available_at LIMIT ?`
}
