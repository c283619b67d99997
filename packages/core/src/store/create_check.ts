/**
 * What every store refuses in a createRun before applying anything (E_INVALID_ARGUMENT, the
 * whole batch applies nothing): malformed tags, origin, priority, queue or seed checkpoints. The engine checks
 * tags at `start` with the same rules (checkTags), so a caller's mistake is reported there.
 */
import type { CheckpointRecord, CreateRunOp, RunOrigin, StoreOp } from '../contracts/index.ts'
import { InvalidArgumentError } from '../errors/index.ts'
import { checkAdmission } from './admission_check.ts'
import { checkPriority } from './run_priority.ts'
import { checkQueueName } from './queue_check.ts'

export const MAX_TAGS = 20
export const MAX_TAG_LENGTH = 64
/** Seed checkpoints one create may carry (a fork copies at most this many positions). */
export const MAX_SEED = 10_000

// eslint-disable-next-line no-control-regex -- control characters are what it finds
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/

export function checkCreateOp(op: StoreOp): void {
  if (op.type !== 'createRun') return
  const { run } = op
  if (run.tags !== undefined) checkTags(run.tags, 'createRun')
  if (run.origin !== undefined) checkOrigin(run.origin)
  if (run.priority !== undefined) checkPriority(run.priority, `createRun ${JSON.stringify(run.id)}`)
  if (run.queue !== undefined) checkQueueName(run.queue, `createRun ${JSON.stringify(run.id)}`)
  if (op.seed !== undefined) checkSeed(op)
  if (op.admission !== undefined) checkAdmission(op.admission, run.id)
}

/**
 * Tags: an array of at most 20 strings, each 1..64 characters (code points), well-formed,
 * without control characters, no two alike. Duplicates are refused, never merged: a caller
 * listing one twice has a bug worth hearing about.
 */
export function checkTags(tags: unknown, where: string): readonly string[] {
  if (!Array.isArray(tags)) throw invalid(`${where}: tags must be an array of strings`)
  if (tags.length > MAX_TAGS) {
    throw invalid(`${where}: at most ${MAX_TAGS} tags, got ${tags.length}`)
  }
  const seen = new Set<string>()
  for (const tag of tags as unknown[]) {
    if (typeof tag !== 'string') throw invalid(`${where}: a tag must be a string`)
    const length = [...tag].length
    if (length < 1 || length > MAX_TAG_LENGTH || !tag.isWellFormed() || CONTROL.test(tag)) {
      throw invalid(
        `${where}: a tag is 1..${MAX_TAG_LENGTH} characters without control characters, got ${JSON.stringify(tag)}`,
        { tag },
      )
    }
    if (seen.has(tag)) throw invalid(`${where}: tag ${JSON.stringify(tag)} given twice`, { tag })
    seen.add(tag)
  }
  return tags as string[]
}

function checkOrigin(origin: RunOrigin): void {
  const { kind, runId, fromSeq } = origin
  const seqOk =
    kind === 'retry' ? fromSeq === null : Number.isSafeInteger(fromSeq) && (fromSeq as number) >= 0
  if ((kind === 'retry' || kind === 'fork') && typeof runId === 'string' && runId !== '' && seqOk) {
    return
  }
  throw invalid(
    'createRun: origin is { kind: "retry", runId, fromSeq: null } or { kind: "fork", runId, fromSeq: integer >= 0 }',
    { runId: String(runId) },
  )
}

/**
 * Seed checkpoints: this run's, delivered outcomes only (completed/failed with an order), one
 * per position and per order. Positions need not be dense: a fork leaves out positions whose
 * outcome was never delivered (a wait still open), which the new run then runs again.
 */
function checkSeed(op: CreateRunOp): void {
  const seed = op.seed as readonly CheckpointRecord[]
  if (!Array.isArray(seed) || seed.length > MAX_SEED) {
    throw invalid(`createRun: seed is an array of at most ${MAX_SEED} checkpoints`)
  }
  const seqs = new Set<number>()
  const orders = new Set<number>()
  for (const cp of seed) {
    const problem = seedProblem(cp, op.run.id, seqs, orders)
    if (problem !== null) {
      throw invalid(`createRun: seed checkpoint at seq ${String(cp?.seq)}: ${problem}`, {
        runId: op.run.id,
      })
    }
    seqs.add(cp.seq)
    orders.add(cp.order as number)
  }
}

function seedProblem(
  cp: CheckpointRecord,
  runId: string,
  seqs: Set<number>,
  orders: Set<number>,
): string | null {
  if (cp === null || typeof cp !== 'object') return 'not a checkpoint'
  if (cp.runId !== runId) return `names run ${String(cp.runId)}, not the created run`
  if (!Number.isSafeInteger(cp.seq) || cp.seq < 0) return 'seq must be an integer >= 0'
  if (cp.status !== 'completed' && cp.status !== 'failed') {
    return `status must be completed or failed, got ${String(cp.status)}`
  }
  if (!Number.isSafeInteger(cp.order) || (cp.order as number) < 1) {
    return 'order must be an integer >= 1'
  }
  if (seqs.has(cp.seq)) return 'seq given twice'
  if (orders.has(cp.order as number)) return `order ${cp.order} given twice`
  return null
}

function invalid(message: string, details?: Record<string, unknown>): InvalidArgumentError {
  return new InvalidArgumentError(message, details === undefined ? undefined : { details })
}
