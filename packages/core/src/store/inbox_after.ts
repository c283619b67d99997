/** Validation of loadInbox's `afterSeq`, shared by every store. */
import { InvalidArgumentError } from '../errors/index.ts'

/** `afterSeq` as a store reads it: 0 when absent; E_INVALID_ARGUMENT unless a non-negative safe integer. */
export function checkInboxAfter(afterSeq: number | undefined): number {
  if (afterSeq === undefined) return 0
  if (Number.isSafeInteger(afterSeq) && afterSeq >= 0) return afterSeq
  throw new InvalidArgumentError(
    `loadInbox: afterSeq must be a non-negative safe integer, got ${String(afterSeq)}`,
    { details: { field: 'afterSeq' } },
  )
}
