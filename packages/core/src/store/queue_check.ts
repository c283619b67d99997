/**
 * What every store refuses in a queue request or a queue name before applying anything
 * (E_INVALID_ARGUMENT, the whole batch applies nothing), and the names a grant is delivered
 * under — the same in every store, so an engine reads any store's grants.
 */
import type { QueueRequest, SaveCheckpointOp } from '../contracts/index.ts'
import { InvalidArgumentError } from '../errors/index.ts'
import { checkRateLimit } from './queue_rate.ts'
import { MAX_PRIORITY, MIN_PRIORITY } from './run_priority.ts'

export const MAX_QUEUE_NAME_LENGTH = 200
/** More slots than this is a mistake, not a bound (and fits every SQL integer). */
export const MAX_QUEUE_CONCURRENCY = 100_000
/** Queues one grantQueueSlots or queueStats call takes. */
export const MAX_QUEUES_PER_CALL = 100

const KEYS = new Set(['queue', 'concurrency', 'attempt', 'priority', 'fairnessKey', 'rateLimit'])

/** What every grant message's name starts with (a requeue consumes the run's grants by it). */
export const QUEUE_SLOT_PREFIX = 'cairn:slot:'

/**
 * The position of a whole run's slot in its queue (`engine.start(…, { queue })`): the run's
 * turns ask for it with a `waiting` checkpoint at this seq, and its end releases it. No step
 * of a body reaches it (the engine refuses a position this high), and a seq this size fits
 * every store's integer columns and a JavaScript number exactly.
 */
export const RUN_SLOT_SEQ = 2_147_483_647

/** The inbox message a grant of position `seq` is delivered as. */
export function queueSlotMessage(seq: number): string {
  return `${QUEUE_SLOT_PREFIX}${seq}`
}

/** The dedupe id of the grant of `attempt` at position `seq` (one grant per attempt). */
export function queueGrantId(seq: number, attempt: number): string {
  return `cairn:slot:${seq}:${attempt}`
}

/** What a run waiting for a slot waits on (RunRecord.waitingOn), the same in every store. */
export function queueWaitingOn(queue: string): string {
  return `queue ${JSON.stringify(queue)}`
}

export function checkQueueRequest(request: unknown, where: string): QueueRequest {
  if (typeof request !== 'object' || request === null || Array.isArray(request))
    throw new InvalidArgumentError(`${where}: enqueue is an object`)
  const r = request as Record<string, unknown>
  const unknown = Object.keys(r).find((k) => !KEYS.has(k))
  if (unknown !== undefined) throw new InvalidArgumentError(`${where}: enqueue has no "${unknown}"`)
  checkQueueName(r.queue, where)
  checkFairnessKey(r.fairnessKey, where)
  if (!isInteger(r.concurrency, 1, MAX_QUEUE_CONCURRENCY))
    throw invalid(`${where}: concurrency is an integer 1..${MAX_QUEUE_CONCURRENCY}`, r.concurrency)
  if (!isInteger(r.attempt, 1, Number.MAX_SAFE_INTEGER))
    throw invalid(`${where}: attempt is an integer >= 1`, r.attempt)
  if (!isInteger(r.priority, MIN_PRIORITY, MAX_PRIORITY))
    throw invalid(`${where}: priority is an integer ${MIN_PRIORITY}..${MAX_PRIORITY}`, r.priority)
  checkRateLimit(r.rateLimit, where)
  return request as QueueRequest
}

/**
 * A save's queue fields: `enqueue` only with a `waiting` checkpoint, `release` only with an
 * outcome (`completed`, `failed`, `retrying`); both well formed.
 */
export function checkCheckpointQueue(op: SaveCheckpointOp): void {
  const { enqueue, release, checkpoint } = op
  const where = `saveCheckpoint ${checkpoint.runId}#${checkpoint.seq}`
  if (enqueue !== undefined) {
    checkQueueRequest(enqueue, where)
    if (checkpoint.status !== 'waiting')
      throw new InvalidArgumentError(`${where}: enqueue needs a waiting checkpoint`)
  }
  if (release !== undefined) {
    checkQueueName(release, `${where}: release`)
    if (checkpoint.status === 'waiting')
      throw new InvalidArgumentError(`${where}: release needs an outcome, not a waiting checkpoint`)
  }
}

/** A queue name: a well-formed string of 1..200 characters (code points), no NUL. */
export function checkQueueName(value: unknown, where: string): string {
  return checkText(value, `${where}: queue name`, 1)
}

/** A fairness key: a well-formed string of 0..200 characters (code points), no NUL. */
export function checkFairnessKey(value: unknown, where: string): string {
  return checkText(value, `${where}: fairnessKey`, 0)
}

/** grantQueueSlots' and queueStats' argument: at most 100 well-formed names. */
export function checkQueueNames(names: unknown, where: string): readonly string[] {
  if (!Array.isArray(names) || names.length > MAX_QUEUES_PER_CALL)
    throw new InvalidArgumentError(
      `${where}: queues is an array of at most ${MAX_QUEUES_PER_CALL} names`,
    )
  for (const name of names as unknown[]) checkQueueName(name, where)
  return names as string[]
}

function checkText(value: unknown, what: string, min: number): string {
  const ok =
    typeof value === 'string' &&
    value.isWellFormed() &&
    !value.includes('\u0000') &&
    [...value].length >= min &&
    [...value].length <= MAX_QUEUE_NAME_LENGTH
  if (!ok)
    throw invalid(
      `${what} must be a string of ${min}..${MAX_QUEUE_NAME_LENGTH} characters (no NUL)`,
      value,
    )
  return value
}

function isInteger(value: unknown, min: number, max: number): value is number {
  return Number.isSafeInteger(value) && (value as number) >= min && (value as number) <= max
}

function invalid(message: string, value: unknown): InvalidArgumentError {
  const shown = typeof value === 'string' ? JSON.stringify(value.slice(0, 80)) : String(value)
  return new InvalidArgumentError(`${message}, got ${shown}`)
}
