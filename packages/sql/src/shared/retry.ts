/**
 * Whole calls tried again after a failure that applied nothing (a deadlock, a serialization
 * failure, a connection lost before commit). Bounded and jittered: a server that is down is
 * reported within a few tens of milliseconds, and the engine's own back-off takes over.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import type { SqlPool } from './driver.ts'

const ATTEMPTS = 3
const FIRST_BACKOFF_MS = 5

export async function withRetries<T>(pool: SqlPool, attempt: () => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await attempt()
    } catch (error) {
      if (tries >= ATTEMPTS || pool.classify(error) !== 'retryable') throw error
      await sleep(backoff(tries))
    }
  }
}

/** Jitter, so two transactions that deadlocked each other do not collide again in lockstep. */
function backoff(tries: number): number {
  const ceiling = FIRST_BACKOFF_MS * 4 ** (tries - 1)
  return Math.round(ceiling * (0.5 + Math.random() / 2))
}
