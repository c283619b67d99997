/**
 * claimRuns: the argument checks every store makes, then the dialect's claim. How a claim is
 * written differs (Postgres: one UPDATE over a SKIP LOCKED subquery, with RETURNING; MySQL:
 * a locking SELECT … SKIP LOCKED and an UPDATE by key in one transaction), what it must do
 * does not: see ClaimWriter.
 */
import { InvalidArgumentError } from '@cairn/core'
import { oldestShare } from '@cairn/core/store-kit'
import type { ClaimRequest, ClaimResult } from '@cairn/core/contracts'
import type { SqlContext } from './context.ts'

export interface ClaimWriter {
  /**
   * Leases up to `limit` due runs of the runnable versions (`runnable` is not empty): the
   * `oldest` share by least `available_at`, the rest by priority, then least `available_at`
   * (ClaimRequest), skipping rows another claim holds, each in one conditional write
   * (epoch + 1, turns + 1, owner, lease expiry, waiting_on cleared, recoveries + 1 when the run
   * was `running`: a takeover); returns them as stored,
   * in that order, and the earliest `available_at` of the runnable runs it did not take.
   */
  claim(ctx: SqlContext, request: ClaimRequest): Promise<ClaimResult>
}

export function claimRuns(
  ctx: SqlContext,
  writer: ClaimWriter,
  request: ClaimRequest,
): Promise<ClaimResult> {
  const { limit, runnable } = request
  if (!Number.isSafeInteger(limit) || limit < 0) {
    throw new InvalidArgumentError(`claimRuns: limit must be an integer >= 0, got ${limit}`)
  }
  oldestShare(request)
  if (runnable.length === 0) return Promise.resolve({ claimed: [], nextAvailableAt: null })
  return writer.claim(ctx, request)
}
