/**
 * The stranded-waiters sweep (engine/stranded_waiters.ts) looks at every waiting key in turn:
 * each sweep takes the next page of queued runs, so a key whose waiter sits behind more than a
 * page of older waiters on full keys is still found (the first version looked at the oldest
 * page only, for ever).
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { MemoryStore } from '@cairn/core'
import type { Admission, StoreOp } from '@cairn/core/contracts'
import { StrandedWaiters } from '../../packages/core/src/engine/stranded_waiters.ts'

const T0 = 2_200_000_000_000

function create(id: string, key: string, at: number, claim = false): StoreOp {
  const admission: Admission = {
    scope: 'sync',
    key,
    limit: 1,
    onFull: 'queue',
    maxQueueDepth: null,
  }
  return {
    type: 'createRun',
    run: { id, workflow: 'sync', version: 'v1', input: '{}', createdAt: at },
    admission,
    ...(claim ? { claim: { owner: 'old-engine', leaseMs: 60_000 } } : {}),
  }
}

/** `runId` (claimed at epoch 1) ends without naming its key: its key's waiter is stranded. */
async function endWithoutKey(store: MemoryStore, runId: string, at: number): Promise<void> {
  const [ended] = await store.applyBatch(
    [
      {
        type: 'finishRun',
        fence: { runId, epoch: 1 },
        status: 'completed',
        output: '1',
        error: null,
      },
    ],
    at,
  )
  assert.equal(ended?.status, 'applied')
}

void test('a waiter behind a page of older waiters on a full key is promoted by a later sweep', async () => {
  const store = new MemoryStore()
  // `hot`: one holder, 100 waiters older than anything on `k`.
  for (let i = 0; i <= 100; i++)
    await store.applyBatch([create(`h${i}`, 'hot', T0 + i, i === 0)], T0 + i)
  await store.applyBatch([create('a', 'k', T0 + 200, true)], T0 + 200)
  await store.applyBatch([create('w', 'k', T0 + 201)], T0 + 201)
  // The holder of `k` ends without naming its key: its waiter is stranded beside a free slot.
  await endWithoutKey(store, 'a', T0 + 300)
  assert.equal((await store.getRun('w'))?.status, 'queued')
  const sweeper = new StrandedWaiters(store)
  assert.equal(await sweeper.sweep(T0 + 400), 0, 'the oldest page: only the full key')
  assert.equal(await sweeper.sweep(T0 + 401), 1, 'the next page: k, promoted')
  assert.equal((await store.getRun('w'))?.status, 'pending')
  // Past the last page it starts again at the oldest.
  assert.equal(await sweeper.sweep(T0 + 402), 0)
})

void test('a page whose promotion failed is looked at again by the next sweep', async () => {
  const store = new MemoryStore()
  // `hot`: one holder, 100 waiters (the first page); then `k`: a holder and a waiter.
  for (let i = 0; i <= 100; i++)
    await store.applyBatch([create(`h${i}`, 'hot', T0 + i, i === 0)], T0 + i)
  await store.applyBatch([create('a', 'k', T0 + 200, true)], T0 + 200)
  await store.applyBatch([create('w', 'k', T0 + 201)], T0 + 201)
  await endWithoutKey(store, 'a', T0 + 300)
  const sweeper = new StrandedWaiters(store)
  assert.equal(await sweeper.sweep(T0 + 400), 0, 'the first page: only the full key')
  const promote = store.promoteQueued.bind(store)
  let failures = 1
  store.promoteQueued = async (keys, now) => {
    if (failures-- > 0) throw new Error('deadlock detected')
    return promote(keys, now)
  }
  await assert.rejects(sweeper.sweep(T0 + 401), /deadlock/)
  assert.equal(await sweeper.sweep(T0 + 402), 1, 'the same page again: w promoted')
  assert.equal((await store.getRun('w'))?.status, 'pending')
})
