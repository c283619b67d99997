/**
 * backlog(now): pending and waiting counts, due timers, and the oldest pending run's
 * availableAt — counted over the statuses that matter and nothing else (running, parked and
 * finished runs never count, whatever their availableAt).
 */
import { ErrorCodes } from '@cairn/core'
import type { StateStore } from '@cairn/core/contracts'
import { BILLING_V1, LEASE_MS, NOT_REGISTERED, T0 } from './fixtures.ts'
import { expectRejection, same, type Define } from './harness.ts'
import { createPending, finish, park, startRun, suspend } from './store_calls.ts'

export function backlogTests(define: Define): void {
  define('an empty store has no backlog', async (store) => {
    same(
      await store.backlog(T0),
      { pending: 0, waiting: 0, blocked: 0, queued: 0, dueTimers: 0, oldestPendingAt: null },
      'backlog of an empty store',
    )
  })

  define('counts pending and waiting runs, due timers and the oldest pending', async (store) => {
    await seedMix(store)
    const now = T0 + 100
    same(
      await store.backlog(now),
      { pending: 3, waiting: 3, blocked: 0, queued: 0, dueTimers: 1, oldestPendingAt: T0 + 20 },
      'backlog at T0 + 100',
    )
    // A timer due exactly at `now` is due; one ms earlier it is not.
    same((await store.backlog(T0 + 10)).dueTimers, 1, 'dueTimers with the wake time = now')
    same((await store.backlog(T0 + 9)).dueTimers, 0, 'dueTimers 1 ms before the wake time')
    same((await store.backlog(T0 + 500)).dueTimers, 2, 'dueTimers once the later timer is due')
  })

  define('refuses a time that is not an integer >= 0', async (store) => {
    for (const now of [Number.NaN, -1, 1.5, Infinity, '5' as unknown as number])
      await expectRejection(
        () => store.backlog(now),
        ErrorCodes.INVALID_ARGUMENT,
        `backlog(${String(now)})`,
      )
  })
}

/**
 * Pending at T0 + 20, + 30 and + 40 (two workflows); waiting with a timer due at T0 + 10,
 * one at T0 + 400 and one with none; and runs that never count although some have an
 * `availableAt` before every pending run's (so is the due timer's): a running run whose lease
 * expired, a parked
 * one, a finished one.
 */
async function seedMix(store: StateStore): Promise<void> {
  await startRun(store, 'running-expired', T0 - 2 * LEASE_MS)
  await finish(store, await startRun(store, 'done', T0), T0 + 1)
  await park(store, await startRun(store, 'parked', T0 + 2), NOT_REGISTERED, T0 + 3)
  await suspend(store, await startRun(store, 'waiting-due', T0 + 4), T0 + 10, T0 + 5)
  await suspend(store, await startRun(store, 'waiting-later', T0 + 6), T0 + 400, T0 + 7)
  await suspend(store, await startRun(store, 'waiting-signal', T0 + 8), null, T0 + 9)
  await createPending(store, 'pending-b', T0 + 30, BILLING_V1)
  await createPending(store, 'pending-a', T0 + 20)
  await createPending(store, 'pending-c', T0 + 40)
}
