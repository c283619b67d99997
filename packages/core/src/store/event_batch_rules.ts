/**
 * Event accumulators (contracts/event_batches.ts): what every store refuses before applying
 * anything (E_INVALID_ARGUMENT), and the rules every store applies — written once, so an add
 * or a claim means the same on every store.
 */
import type { ClaimEventBatchesRequest, EventBatchAdd } from '../contracts/index.ts'
import { InvalidArgumentError } from '../errors/index.ts'
import { MAX_TIME_MS } from '../util/numbers.ts'
import { assertIdentifier } from '../util/validate.ts'
import { checkFairnessKey } from './queue_check.ts'

/** Most payloads one `batch` accumulator holds; a full one is due at once. */
export const MAX_EVENT_BATCH_SIZE = 1000
/** Most accumulators one event's append adds to. */
export const MAX_EVENT_BATCH_ADDS = 32
/** Most accumulators one claim takes. */
export const MAX_EVENT_BATCH_CLAIM = 100
/** Most workflow names one claim filters on. */
export const MAX_CLAIM_WORKFLOWS = 1000

const ADD_KEYS = new Set(['workflow', 'key', 'mode', 'windowMs', 'maxSize', 'maxWaitMs', 'openId'])

/** appendEvent's `batches`: well formed, at most 32, no two naming one workflow and key. */
export function checkEventBatchAdds(adds: unknown, where: string): readonly EventBatchAdd[] {
  if (adds === undefined) return []
  if (!Array.isArray(adds) || adds.length > MAX_EVENT_BATCH_ADDS)
    throw new InvalidArgumentError(
      `${where}: batches is an array of at most ${MAX_EVENT_BATCH_ADDS} accumulator adds`,
    )
  const seen = new Set<string>()
  for (const [i, add] of (adds as unknown[]).entries()) {
    checkAdd(add, `${where}: batches[${i}]`)
    const { workflow, key } = add as EventBatchAdd
    const slot = JSON.stringify([workflow, key])
    if (seen.has(slot))
      throw new InvalidArgumentError(`${where}: batches name workflow and key ${slot} twice`)
    seen.add(slot)
  }
  return adds as EventBatchAdd[]
}

function checkAdd(add: unknown, where: string): void {
  if (typeof add !== 'object' || add === null || Array.isArray(add))
    throw new InvalidArgumentError(`${where}: an add is an object`)
  const a = add as Record<string, unknown>
  const unknown = Object.keys(a).find((k) => !ADD_KEYS.has(k))
  if (unknown !== undefined) throw new InvalidArgumentError(`${where}: an add has no "${unknown}"`)
  assertIdentifier(a.workflow, `${where}: workflow`)
  checkFairnessKey(a.key, `${where}: key`)
  assertIdentifier(a.openId, `${where}: openId`)
  checkTime(a.windowMs, `${where}: windowMs`)
  if (a.mode === 'batch') {
    if (!isInteger(a.maxSize, 1, MAX_EVENT_BATCH_SIZE))
      throw invalid(
        `${where}: a batch's maxSize is an integer 1..${MAX_EVENT_BATCH_SIZE}`,
        a.maxSize,
      )
    if (a.maxWaitMs !== null)
      throw invalid(`${where}: a batch has no maxWaitMs (null)`, a.maxWaitMs)
  } else if (a.mode === 'debounce') {
    if (a.maxSize !== null) throw invalid(`${where}: a debounce has no maxSize (null)`, a.maxSize)
    if (a.maxWaitMs !== null) checkTime(a.maxWaitMs, `${where}: maxWaitMs`)
  } else throw invalid(`${where}: mode is 'debounce' or 'batch'`, a.mode)
}

export function checkClaimEventBatches(request: unknown): ClaimEventBatchesRequest {
  const where = 'claimEventBatches'
  if (typeof request !== 'object' || request === null)
    throw new InvalidArgumentError(
      `${where}: the request is an object { now, limit, owner, leaseMs, workflows }`,
    )
  const r = request as Record<string, unknown>
  if (!isInteger(r.now, 0, MAX_TIME_MS)) throw invalid(`${where}: now is a time in ms`, r.now)
  if (!isInteger(r.limit, 1, MAX_EVENT_BATCH_CLAIM))
    throw invalid(`${where}: limit is an integer 1..${MAX_EVENT_BATCH_CLAIM}`, r.limit)
  if (typeof r.owner !== 'string' || r.owner === '')
    throw invalid(`${where}: owner is a non-empty string`, r.owner)
  checkTime(r.leaseMs, `${where}: leaseMs`)
  if ((r.now as number) + (r.leaseMs as number) > MAX_TIME_MS)
    throw invalid(`${where}: now + leaseMs is past ${MAX_TIME_MS}`, r.leaseMs)
  if (
    !Array.isArray(r.workflows) ||
    r.workflows.length < 1 ||
    r.workflows.length > MAX_CLAIM_WORKFLOWS
  )
    throw new InvalidArgumentError(
      `${where}: workflows is an array of 1..${MAX_CLAIM_WORKFLOWS} workflow names`,
    )
  for (const workflow of r.workflows as unknown[])
    assertIdentifier(workflow, `${where}: a workflow`)
  return request as ClaimEventBatchesRequest
}

/** deleteEventBatch's arguments. */
export function checkEventBatchRef(workflow: unknown, key: unknown, id: unknown): void {
  assertIdentifier(workflow, 'deleteEventBatch: workflow')
  checkFairnessKey(key, 'deleteEventBatch: key')
  assertIdentifier(id, 'deleteEventBatch: id')
}

/** An accumulator as the rules see it: its mode and payload count, its first add and due time. */
export interface AccumulatorTimes {
  size: number
  firstAt: number
  dueAt: number
}

/**
 * Whether `add` joins an open accumulator of its workflow and key, given the one that is not
 * claimed yet (if any): it joins unless that one is a full batch (by the add's `maxSize`:
 * the newest writer's spec counts, as a queue's concurrency does).
 */
export function joinsAccumulator(add: EventBatchAdd, unclaimed: AccumulatorTimes | null): boolean {
  if (unclaimed === null) return false
  return add.mode === 'debounce' || unclaimed.size < (add.maxSize as number)
}

/**
 * The accumulator after `add` at `now`: `joined` null for a new one. A debounce holds one
 * payload, due `windowMs` after it (capped at `maxWaitMs` after the first); a batch counts one
 * more, due `windowMs` after its first — or now, when full — whichever is sooner.
 */
export function afterAdd(
  add: EventBatchAdd,
  joined: AccumulatorTimes | null,
  now: number,
): AccumulatorTimes {
  const firstAt = joined?.firstAt ?? now
  if (add.mode === 'debounce') {
    const quiet = now + add.windowMs
    const cap = add.maxWaitMs === null ? quiet : firstAt + add.maxWaitMs
    return { size: 1, firstAt, dueAt: Math.min(quiet, cap) }
  }
  const size = (joined?.size ?? 0) + 1
  const windowEnd = firstAt + add.windowMs
  const dueAt = size >= (add.maxSize as number) ? Math.min(now, windowEnd) : windowEnd
  return { size, firstAt, dueAt }
}

function checkTime(value: unknown, what: string): void {
  if (!isInteger(value, 1, MAX_TIME_MS))
    throw invalid(`${what} is an integer 1..${MAX_TIME_MS}`, value)
}

function isInteger(value: unknown, min: number, max: number): value is number {
  return Number.isSafeInteger(value) && (value as number) >= min && (value as number) <= max
}

function invalid(message: string, value: unknown): InvalidArgumentError {
  const shown = typeof value === 'string' ? JSON.stringify(value.slice(0, 80)) : String(value)
  return new InvalidArgumentError(`${message}, got ${shown}`)
}
