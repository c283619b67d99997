/**
 * ClaimResult.recovered: a claim says which runs it took over from a lease holder (an expired
 * lease, or one handed back by reclaimOwned) and from whom; fresh work and due timers are not
 * recoveries, and then `recovered` is absent.
 */
import { LEASE_MS, OWNER_A, OWNER_B, T0 } from './fixtures.ts'
import { same, type Define } from './harness.ts'
import { claim, createPending, ids, startRun, suspend } from './store_calls.ts'

export function leaseRecoveryTests(define: Define): void {
  define('a claim of new work or a due timer recovers nothing', async (store) => {
    await createPending(store, 'fresh', T0)
    await suspend(store, await startRun(store, 'sleeper', T0), T0 + 5, T0 + 1)
    const result = await claim(store, { owner: OWNER_B, now: T0 + 10 })
    same(ids(result.claimed), ['fresh', 'sleeper'], 'claimed')
    same(result.recovered, undefined, 'recovered')
  })

  define('an expired lease taken by another owner names the previous owner', async (store) => {
    await startRun(store, 'stalled', T0, { owner: OWNER_A })
    await createPending(store, 'fresh', T0 + 1)
    const result = await claim(store, { owner: OWNER_B, now: T0 + LEASE_MS })
    same(ids(result.claimed), ['fresh', 'stalled'], 'claimed, oldest availableAt first')
    same(result.recovered, [{ runId: 'stalled', previousOwner: OWNER_A }], 'recovered')
  })

  define('runs handed back by reclaimOwned are recovered by their owner', async (store) => {
    await startRun(store, 'mine-1', T0, { owner: OWNER_A })
    await startRun(store, 'mine-2', T0 + 1, { owner: OWNER_A })
    await store.reclaimOwned(OWNER_A, T0 + 10)
    const result = await claim(store, { owner: OWNER_A, now: T0 + 10 })
    // Both became claimable at the same time: claim order between them is not specified.
    const recovered = [...(result.recovered ?? [])].sort((a, b) => (a.runId < b.runId ? -1 : 1))
    same(
      recovered,
      [
        { runId: 'mine-1', previousOwner: OWNER_A },
        { runId: 'mine-2', previousOwner: OWNER_A },
      ],
      'recovered',
    )
  })
}
