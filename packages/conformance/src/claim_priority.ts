/**
 * Run priority (RunRecord.priority, ClaimRequest.oldest): a claim takes its `oldest` share by
 * least `availableAt`, the rest by highest priority, then least `availableAt`, over every
 * claimable run (new, a due timer, an expired lease); a run keeps its priority through every
 * move; the engine's one-in-eight share bounds how long a low priority waits.
 */
import assert from 'node:assert/strict'
import { oldestSlots, OLDEST_SHARE } from '@cairn/core/store-kit'
import type { Fence, NewRun, RunRecord, StateStore, StoreOp } from '@cairn/core/contracts'
import { LEASE_MS, OWNER_A, OWNER_B, T0, createdRecord, newRun } from './fixtures.ts'
import { expectRejection, same, type Define } from './harness.ts'
import { apply, applyOne, claim, expectApplied, ids, mustGetRun, suspend } from './store_calls.ts'

function prioritized(id: string, at: number, priority: number): NewRun {
  return { ...newRun(id, { createdAt: at }), priority }
}

async function createAt(store: StateStore, id: string, at: number, priority: number) {
  expectApplied(
    await applyOne(store, { type: 'createRun', run: prioritized(id, at, priority) }, at),
    `createRun ${id} at priority ${priority}`,
  )
}

/** Creates the runs `[id, availableAt, priority]`. */
async function createAll(
  store: StateStore,
  runs: ReadonlyArray<readonly [string, number, number]>,
) {
  for (const [id, at, priority] of runs) await createAt(store, id, at, priority)
}

function fenceOf(run: RunRecord): Fence {
  return { runId: run.id, epoch: run.leaseEpoch }
}

async function claimedIds(store: StateStore, now: number, limit: number, oldest = 0) {
  return ids((await claim(store, { now, limit, oldest })).claimed)
}

export function claimPriorityTests(define: Define): void {
  define('a run stores its priority (absent is 0), claimed or not', async (store) => {
    const high = prioritized('high', T0, 1000)
    const low = prioritized('low', T0, -1000)
    const plain = newRun('plain', { createdAt: T0 })
    const claimOp = { owner: OWNER_A, leaseMs: LEASE_MS }
    const ops: StoreOp[] = [
      { type: 'createRun', run: high },
      { type: 'createRun', run: low, claim: claimOp },
      { type: 'createRun', run: plain },
    ]
    for (const result of await apply(store, ops, T0)) expectApplied(result, 'createRun')
    same(await mustGetRun(store, 'high'), createdRecord(high, T0), 'priority 1000 as stored')
    same(await mustGetRun(store, 'low'), createdRecord(low, T0, claimOp), 'priority -1000')
    assert.equal((await mustGetRun(store, 'plain')).priority, 0, 'no priority given: 0')
  })

  define('a claim takes higher priority first, equal priority by availableAt', async (store) => {
    await createAll(store, [
      ['a', T0 + 10, 0],
      ['b', T0 + 30, 5],
      ['c', T0 + 20, 5],
      ['d', T0 + 5, -3],
      ['e', T0 + 40, 10],
      ['later', T0 + 500, 99],
      ['g', T0 + 15, 0],
    ])
    same(await claimedIds(store, T0 + 100, 3), ['e', 'c', 'b'], 'the three of highest priority')
    same(await claimedIds(store, T0 + 100, 1), ['a'], 'then priority 0, earliest first')
    same(
      await claimedIds(store, T0 + 100, 10),
      ['g', 'd'],
      'a claim that takes every due run lists them by priority too',
    )
    same(await claimedIds(store, T0 + 499, 10), [], 'a run of high priority that is not due waits')
  })

  define(
    'the oldest share goes to the runs due longest, whatever their priority',
    async (store) => {
      await createAll(store, [
        ['low', T0 + 1, -5],
        ['mid', T0 + 2, 0],
        ['high', T0 + 3, 9],
        ['high2', T0 + 4, 9],
      ])
      const result = await claim(store, { now: T0 + 10, limit: 2, oldest: 1 })
      same(ids(result.claimed), ['low', 'high'], 'the oldest run, then the highest priority')
      assert.equal(result.nextAvailableAt, T0 + 2, 'nextAvailableAt: the earliest run not taken')
      same(await claimedIds(store, T0 + 10, 2, 2), ['mid', 'high2'], 'an all-oldest claim: by age')
    },
  )

  define('nextAvailableAt is the earliest run not taken, whatever its priority', async (store) => {
    await createAll(store, [
      ['old', T0 + 1, 0],
      ['vip', T0 + 5, 50],
      ['sleeper', T0 + 1000, 100],
    ])
    const result = await claim(store, { now: T0 + 10, limit: 1 })
    same(ids(result.claimed), ['vip'], 'the due run of highest priority')
    assert.equal(result.nextAvailableAt, T0 + 1, 'the older run left behind is due now')
    const rest = await claim(store, { now: T0 + 10, limit: 5 })
    same(ids(rest.claimed), ['old'], 'the rest')
    assert.equal(rest.nextAvailableAt, T0 + 1000, 'then the sleeper')
  })

  define('priority holds for due timers and expired leases, not only new runs', async (store) => {
    await createAll(store, [
      ['vip', T0, 7],
      ['leased', T0, 3],
    ])
    const first = await claim(store, { now: T0, limit: 2 })
    same(ids(first.claimed), ['vip', 'leased'], 'both claimed')
    const [vip, leased] = first.claimed as [RunRecord, RunRecord]
    // vip sleeps until T0 + 50; leased's lease lapses at T0 + LEASE_MS.
    await suspend(store, fenceOf(vip), T0 + 50, T0 + 1)
    await createAll(store, [
      ['p0-a', T0 + 2, 0],
      ['p0-b', T0 + 3, 0],
    ])
    const now = T0 + LEASE_MS + 100
    const result = await claim(store, { owner: OWNER_B, now, limit: 2 })
    same(ids(result.claimed), ['vip', 'leased'], 'the woken timer, then the lapsed lease')
    same(result.recovered, [{ runId: 'leased', previousOwner: OWNER_A }], 'the lease taken over')
    assert.equal(leased.priority, 3, 'a claimed run returns its priority')
    same(await claimedIds(store, now, 5), ['p0-a', 'p0-b'], 'priority 0 after them')
  })

  define('requeue and admission promotion keep a run its priority', async (store) => {
    const a = { scope: 'orders', key: 'k', limit: 1, onFull: 'queue' as const, maxQueueDepth: null }
    const ops: StoreOp[] = [
      { type: 'createRun', run: prioritized('holder', T0, 0), admission: a },
      { type: 'createRun', run: prioritized('waiter', T0, 8), admission: a },
      { type: 'createRun', run: prioritized('failing', T0, 4) },
    ]
    for (const result of await apply(store, ops, T0)) expectApplied(result, 'createRun')
    const claimed = (await claim(store, { now: T0, limit: 5 })).claimed
    same(ids(claimed), ['failing', 'holder'], 'the queued waiter is not claimable')
    const [failing, holder] = claimed as [RunRecord, RunRecord]
    const finish = (run: RunRecord, status: 'completed' | 'failed'): StoreOp => ({
      type: 'finishRun',
      fence: fenceOf(run),
      status,
      output: status === 'completed' ? '1' : null,
      error: status === 'failed' ? '{"message":"no"}' : null,
      ...(run.admission === null ? {} : { admission: run.admission }),
    })
    for (const result of await apply(
      store,
      [finish(holder, 'completed'), finish(failing, 'failed')],
      T0 + 1,
    ))
      expectApplied(result, 'finishRun')
    const requeued = await store.requeueRun({
      runId: 'failing',
      epoch: failing.leaseEpoch,
      resetSeqs: [],
      now: T0 + 2,
    })
    assert.equal(requeued.status, 'applied', 'requeueRun')
    await createAt(store, 'plain', T0, 0)
    same(await claimedIds(store, T0 + 5, 1), ['waiter'], 'the promoted waiter keeps priority 8')
    same(await claimedIds(store, T0 + 5, 1), ['failing'], 'the requeued run keeps priority 4')
    same(await claimedIds(store, T0 + 5, 1), ['plain'], 'then priority 0')
  })

  define('one claim slot in eight bounds how long a low priority waits', async (store) => {
    await createAt(store, 'low', T0, -1000)
    let claimedSoFar = 0
    let lowAt = -1
    // A stream of higher runs: one new run per claim, each claim one slot, as a busy engine.
    for (let round = 0; round < 3 * OLDEST_SHARE && lowAt < 0; round++) {
      await createAt(store, `high-${round}`, T0 + 1 + round, 1000)
      const now = T0 + 1 + round
      const oldest = oldestSlots(claimedSoFar, 1)
      const taken = await claimedIds(store, now, 1, oldest)
      claimedSoFar += taken.length
      if (taken.includes('low')) lowAt = claimedSoFar
    }
    assert.ok(lowAt > 0, 'the low run was claimed')
    assert.ok(lowAt <= OLDEST_SHARE, `claimed within ${OLDEST_SHARE} slots, at slot ${lowAt}`)
  })

  define('racing claims at mixed priorities take each run once', async (store) => {
    const runs: Array<readonly [string, number, number]> = []
    for (let i = 0; i < 30; i++) runs.push([`r-${i}`, T0 + i, (i % 3) * 10])
    await createAll(store, runs)
    const owners = ['e1', 'e2', 'e3', 'e4']
    const results = await Promise.all(
      owners.map((owner) => claim(store, { owner, now: T0 + 100, limit: 5, oldest: 1 })),
    )
    const taken = results.flatMap((r) => ids(r.claimed))
    assert.equal(new Set(taken).size, taken.length, `no run claimed twice: ${taken.join(', ')}`)
    for (const [i, result] of results.entries()) {
      for (const run of result.claimed) {
        assert.equal(run.leaseOwner, owners[i], `${run.id} leased to the claim that returned it`)
        assert.equal((await mustGetRun(store, run.id)).leaseOwner, owners[i], `${run.id} stored`)
      }
    }
    assert.equal(taken.length, 20, 'four claims of five, thirty due: twenty taken')
  })

  define(
    'a priority outside -1000..1000 or not an integer is refused; nothing applies',
    async (store) => {
      for (const bad of [1001, -1001, 1.5, Number.NaN, Infinity, '5', null, true]) {
        const ops: StoreOp[] = [
          { type: 'createRun', run: newRun('fine', { createdAt: T0 }) },
          {
            type: 'createRun',
            run: { ...newRun('bad', { createdAt: T0 }), priority: bad as number },
          },
        ]
        await expectRejection(
          () => store.applyBatch(ops, T0),
          'E_INVALID_ARGUMENT',
          `priority ${String(bad)}`,
        )
        assert.equal(await store.getRun('fine'), null, `priority ${String(bad)}: nothing applied`)
      }
    },
  )

  define('an oldest share outside 0..limit or not an integer is refused', async (store) => {
    await createAt(store, 'run-1', T0, 0)
    for (const oldest of [-1, 3, 0.5, Number.NaN, '1']) {
      await expectRejection(
        () => claim(store, { now: T0, limit: 2, oldest: oldest as number }),
        'E_INVALID_ARGUMENT',
        `oldest ${String(oldest)}`,
      )
    }
    assert.equal((await mustGetRun(store, 'run-1')).status, 'pending', 'nothing claimed')
  })
}
