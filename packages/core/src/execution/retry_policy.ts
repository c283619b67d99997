/**
 * When a failed local step attempt is tried again. FatalError (and values the codec cannot
 * store, and a transactional step on a store without transactions) never retry; RetryableError's `retryAfterMs` sets a floor under the backoff.
 */
import {
  FatalError,
  SchemaValidationError,
  NotSerializableError,
  PayloadTooLargeError,
  RetryableError,
  TransactionsUnsupportedError,
} from '../errors/index.ts'
import { InvalidArgumentError } from '../errors/index.ts'
import { toMilliseconds } from '../util/duration.ts'
import { checkOptionKeys } from '../util/known_keys.ts'
import { checkInteger } from '../util/numbers.ts'
import { BACKOFF_OPTIONS } from './option_specs.ts'
import type { LocalStepOptions, RetryOptions } from './types.ts'

export interface RetryPolicy {
  retries: number
  type: 'fixed' | 'exponential'
  delayMs: number
  factor: number
  maxDelayMs: number
  jitter: number
}

export type RetryDecision = { retry: false } | { retry: true; delayMs: number }

const DEFAULTS: RetryPolicy = {
  retries: 3,
  type: 'exponential',
  delayMs: 1_000,
  factor: 2,
  maxDelayMs: 300_000,
  jitter: 0.2,
}

/** The step's own options over the workflow's defaults over Cairn's. Validates every field. */
export function resolveRetryPolicy(
  step: Omit<LocalStepOptions, 'compensate'> = {},
  workflow: RetryOptions = {},
): RetryPolicy {
  // Before the spread: a string (`backoff: 'exp'`) would spread into its characters.
  checkOptionKeys(step.backoff, BACKOFF_OPTIONS)
  const backoff = { ...workflow.backoff, ...step.backoff }
  // Only `undefined` means "not given": a null is a value, refused by the checks below.
  const policy: RetryPolicy = {
    retries: given(step.retries, given(workflow.retries, DEFAULTS.retries)),
    type: given(backoff.type, DEFAULTS.type),
    delayMs:
      backoff.delay === undefined
        ? DEFAULTS.delayMs
        : toMilliseconds(backoff.delay, 'backoff.delay'),
    factor: given(backoff.factor, DEFAULTS.factor),
    maxDelayMs:
      backoff.maxDelay === undefined
        ? DEFAULTS.maxDelayMs
        : toMilliseconds(backoff.maxDelay, 'backoff.maxDelay'),
    jitter: given(backoff.jitter, DEFAULTS.jitter),
  }
  validate(policy)
  return policy
}

function given<T>(value: T | undefined, fallback: T): T {
  return value === undefined ? fallback : value
}

function validate(policy: RetryPolicy): void {
  // Infinity retries is refused: `Number.MAX_SAFE_INTEGER` says "until it succeeds" plainly.
  checkInteger(policy.retries, 'retries', { min: 0, max: Number.MAX_SAFE_INTEGER })
  if (typeof policy.factor !== 'number' || !(policy.factor >= 1 && policy.factor <= 1_000))
    throw new InvalidArgumentError(
      `backoff.factor must be a number from 1 to 1000, got ${String(policy.factor)}`,
    )
  if (typeof policy.jitter !== 'number' || !(policy.jitter >= 0 && policy.jitter <= 1)) {
    throw new InvalidArgumentError(
      `backoff.jitter must be a number within [0, 1], got ${String(policy.jitter)}`,
    )
  }
  if (policy.type !== 'fixed' && policy.type !== 'exponential') {
    throw new InvalidArgumentError(
      `backoff.type must be 'fixed' or 'exponential', got ${String(policy.type)}`,
    )
  }
}

/**
 * Decide after `attempts` failed attempts, the last failing with `error`. `floorMs`: a delay
 * the failure itself asked for from outside (a remote worker's wire `retryAfterMs`), honoured
 * as RetryableError's is.
 */
export function decideRetry(
  error: unknown,
  attempts: number,
  policy: RetryPolicy,
  floorMs = 0,
): RetryDecision {
  if (isPermanent(error) || attempts > policy.retries) return { retry: false }
  const own = RetryableError.is(error) ? retryAfter(error.retryAfterMs) : 0
  const floor = Math.max(own, retryAfter(floorMs))
  return { retry: true, delayMs: Math.max(floor, backoffDelay(attempts, policy)) }
}

/** A step's own `retryAfterMs`: used when it is a finite number ≥ 0, ignored otherwise. */
function retryAfter(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0
}

function isPermanent(error: unknown): boolean {
  return (
    FatalError.is(error) ||
    SchemaValidationError.is(error) ||
    NotSerializableError.is(error) ||
    PayloadTooLargeError.is(error) ||
    TransactionsUnsupportedError.is(error)
  )
}

/** Delay before attempt `attempts + 1`. */
export function backoffDelay(attempts: number, policy: RetryPolicy): number {
  const growth = policy.type === 'fixed' ? 1 : policy.factor ** (attempts - 1)
  const capped = Math.min(policy.maxDelayMs, policy.delayMs * growth)
  return Math.round(capped * (1 - policy.jitter * Math.random()))
}
