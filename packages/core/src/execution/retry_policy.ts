/**
 * When a failed local step attempt is tried again. FatalError (and values the codec cannot
 * store, and a transactional step on a store without transactions) never retry; RetryableError's `retryAfterMs` sets a floor under the backoff.
 */
import {
  FatalError,
  NotSerializableError,
  PayloadTooLargeError,
  RetryableError,
  TransactionsUnsupportedError,
} from '../errors/index.ts'
import { InvalidArgumentError } from '../errors/index.ts'
import { toMilliseconds } from '../util/duration.ts'
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
  const backoff = { ...workflow.backoff, ...step.backoff }
  const policy: RetryPolicy = {
    retries: step.retries ?? workflow.retries ?? DEFAULTS.retries,
    type: backoff.type ?? DEFAULTS.type,
    delayMs:
      backoff.delay === undefined
        ? DEFAULTS.delayMs
        : toMilliseconds(backoff.delay, 'backoff.delay'),
    factor: backoff.factor ?? DEFAULTS.factor,
    maxDelayMs:
      backoff.maxDelay === undefined
        ? DEFAULTS.maxDelayMs
        : toMilliseconds(backoff.maxDelay, 'backoff.maxDelay'),
    jitter: backoff.jitter ?? DEFAULTS.jitter,
  }
  validate(policy)
  return policy
}

function validate(policy: RetryPolicy): void {
  if (!Number.isInteger(policy.retries) || policy.retries < 0) {
    throw new InvalidArgumentError(`retries must be an integer ≥ 0, got ${policy.retries}`)
  }
  if (!(policy.factor >= 1))
    throw new InvalidArgumentError(`backoff.factor must be ≥ 1, got ${policy.factor}`)
  if (!(policy.jitter >= 0 && policy.jitter <= 1)) {
    throw new InvalidArgumentError(`backoff.jitter must be within [0, 1], got ${policy.jitter}`)
  }
  if (policy.type !== 'fixed' && policy.type !== 'exponential') {
    throw new InvalidArgumentError(
      `backoff.type must be 'fixed' or 'exponential', got ${String(policy.type)}`,
    )
  }
}

/** Decide after `attempts` failed attempts, the last failing with `error`. */
export function decideRetry(error: unknown, attempts: number, policy: RetryPolicy): RetryDecision {
  if (isPermanent(error) || attempts > policy.retries) return { retry: false }
  const floor = RetryableError.is(error) ? (error.retryAfterMs ?? 0) : 0
  return { retry: true, delayMs: Math.max(floor, backoffDelay(attempts, policy)) }
}

function isPermanent(error: unknown): boolean {
  return (
    FatalError.is(error) ||
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
