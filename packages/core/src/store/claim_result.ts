/** A ClaimResult as every store builds it: `recovered` only when a lease was taken over. */
import type { ClaimResult, RecoveredLease, RunRecord } from '../contracts/index.ts'

export function claimResult(
  claimed: RunRecord[],
  nextAvailableAt: number | null,
  recovered: RecoveredLease[],
): ClaimResult {
  return recovered.length === 0
    ? { claimed, nextAvailableAt }
    : { claimed, nextAvailableAt, recovered }
}
