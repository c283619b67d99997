/**
 * What the engine decides from a claimed record without reading more (engine/
 * claimed_run_state.ts), tested at its edges: `turns` counts claims and nothing else, so a
 * claim returning `turns === 1` found a run that never held a lease — which cannot hold a
 * checkpoint — and `inboxSeq` as a claim returns it counts every message accepted before the
 * claim. And the hand-back the engine uses for an orphan (a fenced releaseRun) keeps both.
 */
import assert from 'node:assert/strict'
import type { StateStore } from '@cairn/core/contracts'
import {
  FENCED_OPS,
  LEASE_MS,
  NOT_REGISTERED,
  ORDERS_V1,
  OWNER_A,
  OWNER_B,
  T0,
} from './fixtures.ts'
import type { Define } from './harness.ts'
import {
  applyOne,
  checkpoints,
  claim,
  createPending,
  expectApplied,
  expectFenced,
  finish,
  mustGetRun,
  save,
  startRun,
} from './store_calls.ts'
import { checkpoint } from './fixtures.ts'

export function claimCounterTests(define: Define): void {
  define('turns counts claims: 1 after the first, +1 for each claim after', async (store) => {
    await createPending(store, 'run-1', T0)
    assert.equal((await mustGetRun(store, 'run-1')).turns, 0, 'a new unclaimed run')
    const first = await claim(store, { now: T0 + 1 })
    assert.equal(first.claimed[0]?.turns, 1, 'the first claim')
    // Its lease expires unrenewed: the next claim takes it over.
    const second = await claim(store, { owner: OWNER_B, now: T0 + 2 + LEASE_MS })
    assert.equal(second.claimed[0]?.turns, 2, 'a takeover is a claim')
    await startRun(store, 'run-2', T0)
    assert.equal((await mustGetRun(store, 'run-2')).turns, 1, 'a create with claim')
  })

  define('a run that never held a lease takes no checkpoint, at any epoch', async (store) => {
    await createPending(store, 'run-1', T0)
    for (const epoch of [0, 1]) {
      for (const { type, op } of FENCED_OPS) {
        expectFenced(
          await applyOne(store, op('run-1', epoch), T0 + 1),
          { status: 'pending', epoch: 0 },
          `${type} at epoch ${epoch} on a never-claimed run`,
        )
      }
    }
    assert.deepEqual(await checkpoints(store, 'run-1'), [], 'nothing recorded')
    const claimed = await claim(store, { now: T0 + 2 })
    assert.equal(claimed.claimed[0]?.turns, 1)
    assert.deepEqual(await checkpoints(store, 'run-1'), [], 'turns 1: no history')
  })

  define(
    'reclaimOwned and a hand-back (releaseRun) change neither turns nor epoch; the next claim counts',
    async (store) => {
      const fence = await startRun(store, 'run-1', T0)
      await save(store, fence, checkpoint('run-1', 0), T0 + 1)
      assert.equal(await store.reclaimOwned(OWNER_A, T0 + 2), 1)
      let run = await mustGetRun(store, 'run-1')
      assert.deepEqual([run.status, run.turns, run.leaseEpoch], ['running', 1, 1])
      const release = await applyOne(
        store,
        { type: 'releaseRun', fence, availableAt: T0 + 3 },
        T0 + 3,
      )
      expectApplied(release, 'releaseRun at the epoch held')
      run = await mustGetRun(store, 'run-1')
      assert.deepEqual([run.status, run.turns, run.leaseEpoch], ['pending', 1, 1])
      const again = await claim(store, { now: T0 + 4 })
      assert.deepEqual([again.claimed[0]?.turns, again.claimed[0]?.leaseEpoch], [2, 2])
      assert.equal((await checkpoints(store, 'run-1')).length, 1, 'turns 2: the history is there')
      // A hand-back at the epoch the orphan was found at, after a claim moved it: nothing changes.
      expectFenced(
        await applyOne(store, { type: 'releaseRun', fence, availableAt: T0 + 5 }, T0 + 5),
        { status: 'running', epoch: 2 },
        'releaseRun at a stale epoch',
      )
    },
  )

  define('requeue and unpark keep turns; the claim after them counts', async (store) => {
    const fence = await startRun(store, 'run-1', T0)
    const failed = await applyOne(
      store,
      { type: 'finishRun', fence, status: 'failed', output: null, error: '{"message":"x"}' },
      T0 + 1,
    )
    expectApplied(failed, 'finishRun failed')
    const requeued = await store.requeueRun({
      runId: 'run-1',
      epoch: 1,
      resetSeqs: [],
      now: T0 + 2,
    })
    assert.equal(requeued.status, 'applied')
    assert.equal((await mustGetRun(store, 'run-1')).turns, 1, 'requeue keeps turns')
    assert.equal((await claim(store, { now: T0 + 3 })).claimed[0]?.turns, 2)
    // Parked before any claim (no engine had its version), then unparked: still never claimed.
    await createPending(store, 'run-2', T0)
    assert.equal(await store.parkUnrunnable([], T0 + 10, NOT_REGISTERED, T0 + 10), 1)
    assert.equal(await store.unpark([ORDERS_V1], NOT_REGISTERED.code, T0 + 11), 1)
    const unparked = await claim(store, { now: T0 + 12 })
    assert.equal(unparked.claimed[0]?.id, 'run-2')
    assert.equal(unparked.claimed[0]?.turns, 1, 'turns 1 again means: never held a lease')
  })

  define('a claim returns inboxSeq counting every message accepted before it', async (store) => {
    await createPending(store, 'quiet', T0)
    await createPending(store, 'signalled', T0 + 1)
    for (const name of ['a', 'b']) {
      const result = await applyOne(
        store,
        {
          type: 'deliverMessage',
          message: { runId: 'signalled', kind: 'signal', name, dedupeId: null, payload: '1' },
        },
        T0 + 2,
      )
      assert.equal(result.status, 'delivered')
    }
    const claimed = await claim(store, { now: T0 + 3 })
    const seqs = Object.fromEntries(claimed.claimed.map((r) => [r.id, r.inboxSeq]))
    assert.deepEqual(seqs, { quiet: 0, signalled: 2 })
    assert.deepEqual(await store.loadInbox('quiet'), [], 'inboxSeq 0: nothing to read')
    assert.equal((await store.loadInbox('signalled')).length, 2)
  })

  define('finishRun on a claimed run keeps turns as counted', async (store: StateStore) => {
    const fence = await startRun(store, 'run-1', T0, { owner: OWNER_A })
    await finish(store, fence, T0 + 1)
    assert.equal((await mustGetRun(store, 'run-1')).turns, 1)
  })
}
