/** createRun, getRun and open: creating runs is idempotent (I9) and reads see every field. */
import assert from 'node:assert/strict'
import type { StoreOp } from '@cairn/core/contracts'
import {
  BILLING_V1,
  LEASE_MS,
  OWNER_A,
  OWNER_B,
  T0,
  checkpoint,
  createdRecord,
  newRun,
} from './fixtures.ts'
import { same, type Define } from './harness.ts'
import { apply, applyOne, checkpoints, mustGetRun, startRun, suspend } from './store_calls.ts'

export function runsCreateTests(define: Define): void {
  define('createRun stores a pending run with every field set', async (store) => {
    const run = newRun('run-1')
    same(
      await applyOne(store, { type: 'createRun', run }, T0),
      { status: 'applied', epoch: 0 },
      'createRun result',
    )
    same(await mustGetRun(store, 'run-1'), createdRecord(run, T0), 'the created run')
  })

  define(
    'createRun with claim stores a running run leased to the owner, epoch 1',
    async (store) => {
      const run = newRun('run-1')
      const claim = { owner: OWNER_A, leaseMs: LEASE_MS }
      const result = await applyOne(store, { type: 'createRun', run, claim }, T0)
      same(result, { status: 'applied', epoch: 1 }, 'createRun result')
      same(await mustGetRun(store, 'run-1'), createdRecord(run, T0, claim), 'the created run')
    },
  )

  define(
    'createRun of an existing id reports exists with the stored run untouched',
    async (store) => {
      const original = newRun('run-1')
      await applyOne(store, { type: 'createRun', run: original }, T0)
      const again: StoreOp = {
        type: 'createRun',
        run: newRun('run-1', { key: BILLING_V1, createdAt: T0 + 5, input: '{"other":true}' }),
        claim: { owner: OWNER_B, leaseMs: LEASE_MS },
      }
      const result = await applyOne(store, again, T0 + 5)
      same(
        result,
        { status: 'exists', run: createdRecord(original, T0) },
        'second createRun result',
      )
      same(
        await mustGetRun(store, 'run-1'),
        createdRecord(original, T0),
        'run after the second createRun',
      )
    },
  )

  define(
    'createRun records the caller createdAt; a lease runs from the batch time',
    async (store) => {
      const pending = newRun('pending', { createdAt: T0 })
      const leased = newRun('leased', { createdAt: T0 + 1 })
      const claim = { owner: OWNER_A, leaseMs: LEASE_MS }
      const results = await apply(
        store,
        [
          { type: 'createRun', run: pending },
          { type: 'createRun', run: leased, claim },
        ],
        T0 + 7,
      )
      same(
        results,
        [
          { status: 'applied', epoch: 0 },
          { status: 'applied', epoch: 1 },
        ],
        'results',
      )
      const expectPending = createdRecord(pending, T0 + 7)
      same(
        await mustGetRun(store, 'pending'),
        expectPending,
        'pending run created by a batch at T0 + 7',
      )
      same(expectPending.availableAt, T0, 'fixture: an unclaimed run is available from createdAt')
      const expectLeased = createdRecord(leased, T0 + 7, claim)
      same(
        await mustGetRun(store, 'leased'),
        expectLeased,
        'leased run created by a batch at T0 + 7',
      )
      same(
        expectLeased.availableAt,
        T0 + 7 + LEASE_MS,
        'fixture: the lease runs from the batch time',
      )
    },
  )

  define('exists returns the run as stored now, not as created', async (store) => {
    const fence = await startRun(store, 'run-1', T0)
    await suspend(store, fence, T0 + 1_000, T0 + 10)
    const stored = await mustGetRun(store, 'run-1')
    assert.equal(stored.status, 'waiting', 'suspendRun must leave the run waiting')
    const result = await applyOne(store, { type: 'createRun', run: newRun('run-1') }, T0 + 20)
    same(result, { status: 'exists', run: stored }, 'createRun of a suspended run')
  })

  define('two creates of one id in one batch: the second reports exists', async (store) => {
    const run = newRun('run-1')
    const results = await apply(
      store,
      [
        { type: 'createRun', run },
        { type: 'createRun', run, claim: { owner: OWNER_A, leaseMs: LEASE_MS } },
      ],
      T0,
    )
    same(
      results,
      [
        { status: 'applied', epoch: 0 },
        { status: 'exists', run: createdRecord(run, T0) },
      ],
      'results',
    )
  })

  define('getRun is null and loadCheckpoints is [] for an unknown run', async (store) => {
    assert.equal(await store.getRun('no-such-run'), null, 'getRun of an unknown id must be null')
    same(await store.loadCheckpoints('no-such-run'), [], 'loadCheckpoints of an unknown run')
  })

  define('open is idempotent and keeps what is stored', async (store) => {
    const fence = await startRun(store, 'run-1', T0)
    const cp = checkpoint('run-1', 0)
    await apply(store, [{ type: 'saveCheckpoint', fence, checkpoint: cp }], T0 + 1)
    await store.open()
    same(
      await mustGetRun(store, 'run-1'),
      createdRecord(newRun('run-1'), T0, { owner: OWNER_A, leaseMs: LEASE_MS }),
      'run after a second open',
    )
    same(await checkpoints(store, 'run-1'), [cp], 'checkpoints after a second open')
  })
}
