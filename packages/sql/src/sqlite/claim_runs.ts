/**
 * claimRuns in one write transaction (SQLite has one writer: nothing read here can change
 * before the claim's UPDATEs). One query walks the claim index in `available_at` order and
 * fetches limit + 1 candidates. When at most `limit` of them are due, the claim takes them all
 * and priority cannot change what it takes: the common, idle case costs that one query. Only
 * when more runs are due than the claim can take does priority decide (prioritized_claim.ts).
 * Either way the first candidate not taken gives `nextAvailableAt` (the candidates are the
 * earliest entries, and every one before it was taken).
 */
import { InvalidArgumentError } from '@cairn/core'
import { claimResult, inClaimOrder, oldestShare } from '@cairn/core/store-kit'
import type { ClaimRequest, ClaimResult, RunRecord } from '@cairn/core/contracts'
import type { StatementCache } from './statement_cache.ts'
import type { Statements } from './statements.ts'
import { toRunRecord, type RunRow } from './row_mapping.ts'
import { byPriority, type Candidate } from './prioritized_claim.ts'
import { keyRows, keyValues } from './workflow_keys.ts'

export function claimRuns(
  s: Statements,
  cache: StatementCache,
  request: ClaimRequest,
): ClaimResult {
  const { runnable, limit, now } = request
  if (!Number.isSafeInteger(limit) || limit < 0) {
    throw new InvalidArgumentError(`claimRuns: limit must be an integer >= 0, got ${limit}`)
  }
  const oldest = oldestShare(request)
  if (runnable.length === 0) return { claimed: [], nextAvailableAt: null }
  const candidates = selectCandidates(cache, request, limit + 1)
  const allDue = candidates.every((c) => c.available_at <= now)
  const taken =
    candidates.length > limit && allDue
      ? byPriority(cache, request, candidates.slice(0, oldest))
      : inClaimOrder(
          candidates.slice(0, limit).filter((c) => c.available_at <= now),
          oldest,
          (c) => c.priority,
        )
  const recovered = taken
    .filter((c) => c.status === 'running')
    .map((c) => ({ runId: c.id, previousOwner: c.lease_owner as string }))
  const claimed = taken.map((c) => claimOne(s, request, c.id))
  const ids = new Set(taken.map((c) => c.id))
  const next = candidates.find((c) => !ids.has(c.id))?.available_at ?? null
  return claimResult(claimed, next, recovered)
}

function selectCandidates(
  cache: StatementCache,
  request: ClaimRequest,
  count: number,
): Candidate[] {
  const { runnable } = request
  const statement = cache.get(`claim:${runnable.length}`, () => candidatesSql(runnable.length))
  return statement.all(...keyValues(runnable), count) as unknown as Candidate[]
}

/** The partial index holds exactly the claimable runs (schema CHECK), with the key in it. */
function candidatesSql(keyCount: number): string {
  return `SELECT id, available_at, priority, status, lease_owner FROM cairn_runs INDEXED BY cairn_runs_claimable
    WHERE available_at IS NOT NULL AND (workflow, version) IN (VALUES ${keyRows(keyCount)})
    ORDER BY available_at LIMIT ?`
}

function claimOne(s: Statements, request: ClaimRequest, id: string): RunRecord {
  const { owner, now, leaseMs } = request
  return toRunRecord(s.claimRun.get(owner, now + leaseMs, now, id) as unknown as RunRow)
}
