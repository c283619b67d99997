/**
 * A requeue names positions to reset. Every store refuses a malformed list before touching
 * anything: a position that is not a non-negative integer would match nothing in one store
 * and be coerced in another, and a duplicate would be counted twice.
 */
import type { RequeueRequest } from '../contracts/index.ts'
import { InvalidArgumentError } from '../errors/index.ts'

/** More positions than a run can sensibly fail at once; keeps the statement bounded. */
export const MAX_RESET_POSITIONS = 1000

export function checkRequeueRequest(request: RequeueRequest): void {
  const { runId, epoch, resetSeqs } = request
  const problem = resetSeqsProblem(resetSeqs)
  if (problem === null && Number.isSafeInteger(epoch) && epoch >= 0) return
  throw new InvalidArgumentError(
    `requeueRun of "${String(runId)}": ${problem ?? `epoch must be an integer >= 0, got ${String(epoch)}`}`,
    { details: { runId, epoch } },
  )
}

function resetSeqsProblem(seqs: readonly number[]): string | null {
  if (!Array.isArray(seqs)) return 'resetSeqs must be an array of positions'
  if (seqs.length > MAX_RESET_POSITIONS)
    return `resetSeqs holds ${seqs.length} positions, over the limit of ${MAX_RESET_POSITIONS}`
  const bad = seqs.find((seq) => !Number.isSafeInteger(seq) || seq < 0)
  if (bad !== undefined) return `resetSeqs must hold integers >= 0, got ${String(bad)}`
  if (new Set(seqs).size !== seqs.length) return 'resetSeqs must not repeat a position'
  return null
}
