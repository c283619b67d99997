/** Validation of a loadCheckpointPage request, shared by every store. */
import type { CheckpointPage } from '../contracts/index.ts'
import { InvalidArgumentError } from '../errors/index.ts'

export const MAX_CHECKPOINT_PAGE = 1000

/** Throws E_INVALID_ARGUMENT unless fromSeq is a non-negative safe integer and limit is in 1..1000. */
export function checkCheckpointPage(page: CheckpointPage): void {
  const { fromSeq, limit } = page ?? {}
  if (!Number.isSafeInteger(fromSeq) || fromSeq < 0)
    throw invalid(`fromSeq must be a non-negative safe integer, got ${String(fromSeq)}`, 'fromSeq')
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_CHECKPOINT_PAGE)
    throw invalid(
      `limit must be an integer in 1..${MAX_CHECKPOINT_PAGE}, got ${String(limit)}`,
      'limit',
    )
}

function invalid(message: string, field: string): InvalidArgumentError {
  return new InvalidArgumentError(`loadCheckpointPage: ${message}`, { details: { field } })
}
