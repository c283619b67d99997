/**
 * Slot leases (StateStore.leaseQueueSlots): what every store refuses in a request before
 * applying anything, and the rule deciding how many slots the owner holds after the call —
 * written once so every store holds the same number for the same counts.
 */
import type { QueueLeaseRequest } from '../contracts/index.ts'
import { InvalidArgumentError } from '../errors/index.ts'
import { MAX_ID_LENGTH } from '../util/validate.ts'
import { checkQueueName, MAX_QUEUE_CONCURRENCY } from './queue_check.ts'

/** The longest lease: the largest timer delay Node keeps (2^31 − 1 ms). */
export const MAX_QUEUE_LEASE_MS = 2_147_483_647

const KEYS = new Set(['queue', 'owner', 'want', 'inUse', 'concurrency', 'leaseMs'])

/** The request, checked (E_INVALID_ARGUMENT naming the field), and `now`. */
export function checkQueueLease(request: unknown, now: unknown): QueueLeaseRequest {
  const where = 'leaseQueueSlots'
  if (typeof request !== 'object' || request === null || Array.isArray(request))
    throw new InvalidArgumentError(`${where}: the request is an object`)
  const r = request as Record<string, unknown>
  const unknown = Object.keys(r).find((k) => !KEYS.has(k))
  if (unknown !== undefined)
    throw new InvalidArgumentError(`${where}: the request has no "${unknown}"`)
  checkQueueName(r.queue, where)
  const owner = r.owner
  const ownerOk =
    typeof owner === 'string' &&
    owner.isWellFormed() &&
    !owner.includes('\u0000') &&
    owner.length > 0 &&
    owner.length <= MAX_ID_LENGTH
  if (!ownerOk)
    throw invalid(
      `${where}: owner must be a string of 1..${MAX_ID_LENGTH} UTF-16 code units (no NUL), as an engine's instanceId`,
      owner,
    )
  if (!isInteger(r.want, 0, MAX_QUEUE_CONCURRENCY))
    throw invalid(`${where}: want is an integer 0..${MAX_QUEUE_CONCURRENCY}`, r.want)
  if (!isInteger(r.inUse, 0, MAX_QUEUE_CONCURRENCY))
    throw invalid(`${where}: inUse is an integer 0..${MAX_QUEUE_CONCURRENCY}`, r.inUse)
  if (!isInteger(r.concurrency, 1, MAX_QUEUE_CONCURRENCY))
    throw invalid(`${where}: concurrency is an integer 1..${MAX_QUEUE_CONCURRENCY}`, r.concurrency)
  if (!isInteger(r.leaseMs, 1, MAX_QUEUE_LEASE_MS))
    throw invalid(`${where}: leaseMs is an integer 1..${MAX_QUEUE_LEASE_MS}`, r.leaseMs)
  if (!isInteger(now, 0, Number.MAX_SAFE_INTEGER - MAX_QUEUE_LEASE_MS))
    throw invalid(`${where}: now is a time in milliseconds`, now)
  return request as QueueLeaseRequest
}

/** The counts a lease call reads under the queue's lock. */
export interface LeaseCounts {
  concurrency: number
  /** Slots granted items hold (as a grant pass counts them). */
  granted: number
  /** Unexpired slots of the other owners' leases. */
  othersLeased: number
  /** The owner's unexpired slots before the call (0: none, or expired). */
  mine: number
  /** Items waiting for a grant. */
  waiting: number
}

/**
 * Slots the owner holds after the call: what its attempts hold is kept (min(`inUse`, what it
 * held): never evicted, whatever the concurrency or the waiters); beyond that it grows into
 * what is free, up to `want` — while items wait for a grant, never past what it held (durable
 * waiters come before a holder's growth).
 */
export function leasedSlots(request: { want: number; inUse: number }, c: LeaseCounts): number {
  const keep = Math.min(request.inUse, c.mine)
  const free = Math.max(0, c.concurrency - c.granted - c.othersLeased)
  const grow = Math.min(request.want, free)
  return Math.max(keep, c.waiting > 0 ? Math.min(grow, c.mine) : grow)
}

function isInteger(value: unknown, min: number, max: number): value is number {
  return Number.isSafeInteger(value) && (value as number) >= min && (value as number) <= max
}

function invalid(message: string, value: unknown): InvalidArgumentError {
  const shown = typeof value === 'string' ? JSON.stringify(value.slice(0, 80)) : String(value)
  return new InvalidArgumentError(`${message}, got ${shown}`)
}
