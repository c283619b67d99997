/**
 * Waiting out another process's lock without freezing this one. SQLite's own busy handler
 * sleeps synchronously, which would stall the event loop (timers, lease renewals) for the
 * whole wait; so the connection's busy_timeout is only a short slice and the rest of the
 * wait happens here, asynchronously, with backoff, until the caller's bound is spent.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { isBusy, storeFailure } from './sqlite_errors.ts'

/** Longest synchronous wait inside SQLite's busy handler, per attempt. */
export const BUSY_SLICE_MS = 50

const FIRST_BACKOFF_MS = 2
const MAX_BACKOFF_MS = 50

/**
 * Runs `attempt` until it does not fail with SQLITE_BUSY, for at most `boundMs` in total.
 * `attempt` must leave nothing changed when it throws (a rolled-back transaction, a read),
 * which is what makes running it again safe. Any failure becomes E_STORE_FAILURE.
 */
export function withBusyRetry<T>(operation: string, boundMs: number, attempt: () => T): Promise<T> {
  const startedAt = Date.now()
  try {
    return Promise.resolve(attempt())
  } catch (err) {
    return retryWhileBusy(operation, { startedAt, boundMs }, attempt, err)
  }
}

export interface RetryBound {
  /** When the first attempt started (Date.now()). */
  startedAt: number
  boundMs: number
}

/**
 * The slow path, after a first attempt failed with `firstError`: waits with backoff and
 * tries again while the failure is SQLITE_BUSY and the bound allows another wait.
 */
export async function retryWhileBusy<T>(
  operation: string,
  bound: RetryBound,
  attempt: () => T,
  firstError: unknown,
): Promise<T> {
  const deadline = bound.startedAt + bound.boundMs
  let error = firstError
  for (let tries = 0; ; tries++) {
    const delay = backoff(tries)
    if (!isBusy(error) || Date.now() + delay > deadline) {
      throw busyAware(operation, error, bound.boundMs)
    }
    await sleep(delay)
    try {
      return attempt()
    } catch (err) {
      error = err
    }
  }
}

/** Exponential with jitter, so processes that collided do not retry in lockstep. */
function backoff(tries: number): number {
  const ceiling = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** tries)
  return Math.max(1, Math.round(ceiling * (0.5 + Math.random() / 2)))
}

function busyAware(operation: string, err: unknown, boundMs: number) {
  if (!isBusy(err)) return storeFailure(operation, err)
  return storeFailure(
    `${operation} (database locked by another connection for over ${boundMs} ms)`,
    err,
  )
}
