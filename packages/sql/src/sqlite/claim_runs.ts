/**
 * claimRuns in one write transaction. One query walks the claimable index in `available_at`
 * order and fetches limit + 1 candidates: the due ones among the first `limit` are claimed,
 * and the first one not claimed gives `nextAvailableAt` (the rows form one ordering, so
 * whatever this call leaves is after what it took).
 */
import { InvalidArgumentError } from '@cairn/core'
import { claimResult } from '@cairn/core/store-kit'
import type { ClaimRequest, ClaimResult, RunRecord } from '@cairn/core/contracts'
import type { StatementCache } from './statement_cache.ts'
import type { Statements } from './statements.ts'
import { toRunRecord, type RunRow } from './row_mapping.ts'
import { keyRows, keyValues } from './workflow_keys.ts'

interface Candidate {
  id: string
  available_at: number
  /** Before the claim: `running` means a lease is taken over (ClaimResult.recovered). */
  status: string
  lease_owner: string | null
}

export function claimRuns(
  s: Statements,
  cache: StatementCache,
  request: ClaimRequest,
): ClaimResult {
  const { runnable, limit, now } = request
  if (!Number.isSafeInteger(limit) || limit < 0) {
    throw new InvalidArgumentError(`claimRuns: limit must be an integer >= 0, got ${limit}`)
  }
  if (runnable.length === 0) return { claimed: [], nextAvailableAt: null }
  const candidates = selectCandidates(cache, request, limit + 1)
  const due = candidates.slice(0, limit).filter((c) => c.available_at <= now)
  const recovered = due
    .filter((c) => c.status === 'running')
    .map((c) => ({ runId: c.id, previousOwner: c.lease_owner as string }))
  const claimed = due.map((c) => claimOne(s, request, c.id))
  return claimResult(claimed, candidates[due.length]?.available_at ?? null, recovered)
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
  return `SELECT id, available_at, status, lease_owner FROM cairn_runs INDEXED BY cairn_runs_claimable
    WHERE available_at IS NOT NULL AND (workflow, version) IN (VALUES ${keyRows(keyCount)})
    ORDER BY available_at LIMIT ?`
}

function claimOne(s: Statements, request: ClaimRequest, id: string): RunRecord {
  const { owner, now, leaseMs } = request
  return toRunRecord(s.claimRun.get(owner, now + leaseMs, now, id) as unknown as RunRow)
}
