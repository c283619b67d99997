/**
 * Singleton admission (CreateRunOp.admission): a key admits at most `limit` runs at once;
 * over it a create queues (in start order) or is refused with nothing written; the write
 * that ends a run frees its slot, and its key's next waiter is promoted before the call
 * returns (in its transaction, or right after its commit: StateStore FinishRunOp.admission).
 * Counts are always read back from the runs themselves, never from what the store says.
 */
import assert from 'node:assert/strict'
import type {
  Admission,
  Fence,
  OpResult,
  RunRecord,
  StateStore,
  StoreOp,
} from '@cairn/core/contracts'
import { LEASE_MS, OWNER_A, T0, newRun } from './fixtures.ts'
import { expectRejection, same, type Define } from './harness.ts'
import { apply, applyOne, claim, expectApplied, mustGetRun } from './store_calls.ts'

const SCOPE = 'orders'
/** The key most tests use, as a finish or a cancel names it. */
const KEY_K = { scope: SCOPE, key: 'k' }

function admission(key: string, overrides: Partial<Admission> = {}): Admission {
  return { scope: SCOPE, key, limit: 1, onFull: 'queue', maxQueueDepth: null, ...overrides }
}

function create(id: string, a: Admission, at = T0, claimed = false): StoreOp {
  return {
    type: 'createRun',
    run: newRun(id, { createdAt: at }),
    admission: a,
    ...(claimed ? { claim: { owner: OWNER_A, leaseMs: LEASE_MS } } : {}),
  }
}

async function admit(store: StateStore, id: string, a: Admission, at = T0): Promise<OpResult> {
  return applyOne(store, create(id, a, at), at)
}

/** Runs of `ids` by status, read from the store. */
async function statuses(
  store: StateStore,
  ids: readonly string[],
): Promise<Record<string, string>> {
  const out: Record<string, string> = {}
  for (const id of ids) out[id] = (await store.getRun(id))?.status ?? 'absent'
  return out
}

/** Claims `id` (it must be claimable) and returns its fence. */
async function claimOne(store: StateStore, id: string, now: number): Promise<Fence> {
  const { claimed } = await claim(store, { now, limit: 100 })
  const run = claimed.find((r) => r.id === id)
  assert.ok(
    run !== undefined,
    `${id} must be claimable at ${now}; claimed ${claimed.map((r) => r.id).join(', ')}`,
  )
  return { runId: id, epoch: run.leaseEpoch }
}

function finishOp(
  fence: Fence,
  key: string | null,
  status: 'completed' | 'failed' = 'completed',
): StoreOp {
  return {
    type: 'finishRun',
    fence,
    status,
    output: status === 'completed' ? '"ok"' : null,
    error: status === 'failed' ? '{"message":"no"}' : null,
    ...(key === null ? {} : { admission: { scope: SCOPE, key } }),
  }
}

/** An applied end that says whether its freed slot promoted queued runs (OpResult.promoted). */
function expectPromoted(result: OpResult, promoted: boolean, what: string): void {
  expectApplied(result, what)
  const said = result.status === 'applied' && result.promoted === true
  assert.equal(said, promoted, `${what}: promoted ${JSON.stringify(result)}`)
}

export function admissionTests(define: Define): void {
  define(
    'a key admits up to its limit; over it, reject writes nothing and says why',
    async (store) => {
      const a = admission('cart-1', { limit: 2, onFull: 'reject' })
      same(await admit(store, 'r1', a), { status: 'applied', epoch: 0 }, 'first')
      same(await admit(store, 'r2', a), { status: 'applied', epoch: 0 }, 'second')
      same(
        await admit(store, 'r3', a),
        { status: 'full', key: 'cart-1', admitted: 2, queued: 0 },
        'third, over the limit',
      )
      assert.equal(await store.getRun('r3'), null, 'a refused create writes no run')
      const run = await mustGetRun(store, 'r1')
      same(run.admission, { scope: SCOPE, key: 'cart-1' }, 'RunRecord.admission')
      // Another key, and the same key in another scope, have slots of their own.
      same(
        await admit(store, 'r4', admission('cart-2', { onFull: 'reject' })),
        { status: 'applied', epoch: 0 },
        'other key',
      )
      same(
        await admit(store, 'r5', { ...a, scope: 'billing' }),
        { status: 'applied', epoch: 0 },
        'same key, other scope',
      )
    },
  )

  define(
    'over the limit with onFull queue: created queued, unclaimable, unleased',
    async (store) => {
      const a = admission('cart-1')
      same(
        await applyOne(store, create('r1', a, T0, true), T0),
        { status: 'applied', epoch: 1 },
        'admitted, claimed',
      )
      same(
        await applyOne(store, create('r2', a, T0 + 1, true), T0 + 1),
        { status: 'applied', epoch: 0, queued: true },
        'queued: the claim is not taken',
      )
      const queued = await mustGetRun(store, 'r2')
      assert.equal(queued.status, 'queued')
      assert.equal(queued.availableAt, null, 'a queued run is not claimable')
      assert.equal(queued.leaseOwner, null)
      assert.equal(queued.leaseEpoch, 0)
      assert.equal(queued.turns, 0)
      assert.match(queued.waitingOn ?? '', /cart-1/, 'waitingOn names the key')
      const { claimed } = await claim(store, { now: T0 + 10 * LEASE_MS })
      assert.ok(!claimed.some((r) => r.id === 'r2'), 'claimRuns never takes a queued run')
      const backlog = await store.backlog(T0 + 10)
      same([backlog.queued, backlog.pending], [1, 0], 'backlog: queued apart from pending')
      const listed = await store.listRuns({ status: 'queued', limit: 10 })
      same(
        listed.runs.map((r) => r.id),
        ['r2'],
        'listRuns({ status: "queued" })',
      )
    },
  )

  define('maxQueueDepth bounds the queue; a full queue refuses with the counts', async (store) => {
    const a = admission('k', { maxQueueDepth: 2 })
    await admit(store, 'r1', a)
    for (const id of ['r2', 'r3'])
      same(await admit(store, id, a), { status: 'applied', epoch: 0, queued: true }, id)
    same(await admit(store, 'r4', a), { status: 'full', key: 'k', admitted: 1, queued: 2 }, 'r4')
    assert.equal(await store.getRun('r4'), null)
    same(
      await admit(store, 'r5', { ...a, maxQueueDepth: 0 }),
      { status: 'full', key: 'k', admitted: 1, queued: 2 },
      'depth 0: never queues',
    )
  })

  define(
    'a finish carrying the key promotes the oldest waiter in the same write',
    async (store) => {
      const a = admission('k')
      await admit(store, 'r1', a, T0)
      await admit(store, 'r3', a, T0 + 1) // ids out of order: start order decides, not the id
      await admit(store, 'r2', a, T0 + 2)
      const fence = await claimOne(store, 'r1', T0 + 5)
      expectPromoted(await applyOne(store, finishOp(fence, 'k'), T0 + 6), true, 'finish r1')
      same(
        await statuses(store, ['r1', 'r3', 'r2']),
        { r1: 'completed', r3: 'pending', r2: 'queued' },
        'after r1',
      )
      const promoted = await mustGetRun(store, 'r3')
      assert.equal(promoted.availableAt, T0 + 6, 'promoted runs are claimable at once')
      assert.equal(promoted.waitingOn, null)
      const f3 = await claimOne(store, 'r3', T0 + 7)
      expectPromoted(await applyOne(store, finishOp(f3, 'k', 'failed'), T0 + 8), true, 'fail r3')
      same(await statuses(store, ['r2']), { r2: 'pending' }, 'a failed run frees its slot too')
      const f2 = await claimOne(store, 'r2', T0 + 9)
      expectPromoted(await applyOne(store, finishOp(f2, 'k'), T0 + 10), false, 'nobody waits')
    },
  )

  define('a waiting run and a lapsed lease hold the slot', async (store) => {
    const a = admission('k', { onFull: 'reject' })
    await applyOne(store, create('r1', a, T0, true), T0)
    const fence = { runId: 'r1', epoch: 1 }
    expectApplied(
      await applyOne(
        store,
        { type: 'suspendRun', fence, wakeAt: null, waitingOn: 'signal', inboxSeen: 0 },
        T0 + 1,
      ),
      'suspend',
    )
    assert.equal((await admit(store, 'w', a, T0 + 2)).status, 'full', 'waiting holds it')
    // Long after any lease: still held (a killed holder's run keeps its slot until it ends).
    assert.equal(
      (await admit(store, 'w', a, T0 + 100 * LEASE_MS)).status,
      'full',
      'time frees nothing',
    )
  })

  define(
    'a finish without the key frees the slot; the next create promotes the waiter first',
    async (store) => {
      const a = admission('k')
      await admit(store, 'r1', a, T0)
      await admit(store, 'r2', a, T0 + 1)
      const fence = await claimOne(store, 'r1', T0 + 5)
      expectPromoted(
        await applyOne(store, finishOp(fence, null), T0 + 6),
        false,
        'finish without the key',
      )
      same(await statuses(store, ['r2']), { r2: 'queued' }, 'no promotion without the key')
      // The next write on the key: r2 goes first, the newcomer queues behind nobody but r2.
      same(await admit(store, 'r3', a, T0 + 7), { status: 'applied', epoch: 0, queued: true }, 'r3')
      same(
        await statuses(store, ['r2', 'r3']),
        { r2: 'pending', r3: 'queued' },
        'r2 promoted by r3',
      )
      assert.equal((await mustGetRun(store, 'r2')).availableAt, T0 + 7)
    },
  )

  define(
    'cancel: an admitted run frees and promotes; a queued one leaves its place',
    async (store) => {
      const a = admission('k')
      for (const [i, id] of ['r1', 'r2', 'r3', 'r4'].entries()) await admit(store, id, a, T0 + i)
      expectPromoted(
        await applyOne(
          store,
          { type: 'cancelRun', runId: 'r3', error: '{"message":"x"}', admission: KEY_K },
          T0 + 10,
        ),
        false,
        'cancel queued r3',
      )
      same(
        await statuses(store, ['r1', 'r2', 'r3', 'r4']),
        { r1: 'pending', r2: 'queued', r3: 'cancelled', r4: 'queued' },
        'after r3',
      )
      expectPromoted(
        await applyOne(
          store,
          { type: 'cancelRun', runId: 'r1', error: '{"message":"x"}', admission: KEY_K },
          T0 + 11,
        ),
        true,
        'cancel r1',
      )
      same(await statuses(store, ['r2', 'r4']), { r2: 'pending', r4: 'queued' }, 'after r1')
      assert.equal((await mustGetRun(store, 'r2')).availableAt, T0 + 11)
    },
  )

  define('a resubmitted create answers exists and takes no second slot', async (store) => {
    const a = admission('k', { limit: 2, onFull: 'reject' })
    await admit(store, 'r1', a)
    assert.equal((await admit(store, 'r1', a)).status, 'exists')
    assert.equal((await admit(store, 'r1', a)).status, 'exists')
    same(
      await admit(store, 'r2', a),
      { status: 'applied', epoch: 0 },
      'the second slot is still free',
    )
  })

  define(
    'a raised limit promotes at the next write; a lowered one evicts nobody',
    async (store) => {
      await admit(store, 'r1', admission('k'), T0)
      await admit(store, 'r2', admission('k'), T0 + 1)
      await admit(store, 'r3', admission('k'), T0 + 2)
      // A deploy with limit 3: its first start promotes both waiters, then is admitted itself.
      same(
        await admit(store, 'r4', admission('k', { limit: 3 }), T0 + 3),
        { status: 'applied', epoch: 0, queued: true },
        'r4',
      )
      same(
        await statuses(store, ['r1', 'r2', 'r3', 'r4']),
        { r1: 'pending', r2: 'pending', r3: 'pending', r4: 'queued' },
        'limit 3',
      )
      // Back to limit 1: the three keep their slots; newcomers wait until the count is under it.
      same(
        await admit(store, 'r5', admission('k'), T0 + 4),
        { status: 'applied', epoch: 0, queued: true },
        'r5',
      )
      same(
        await statuses(store, ['r1', 'r2', 'r3']),
        { r1: 'pending', r2: 'pending', r3: 'pending' },
        'nobody evicted',
      )
      for (const id of ['r1', 'r2'])
        expectApplied(
          await applyOne(
            store,
            { type: 'cancelRun', runId: id, error: '{}', admission: KEY_K },
            T0 + 5,
          ),
          id,
        )
      same(
        await statuses(store, ['r4', 'r5']),
        { r4: 'queued', r5: 'queued' },
        'still one over the lowered limit',
      )
      expectApplied(
        await applyOne(
          store,
          { type: 'cancelRun', runId: 'r3', error: '{}', admission: KEY_K },
          T0 + 6,
        ),
        'r3',
      )
      same(
        await statuses(store, ['r4', 'r5']),
        { r4: 'pending', r5: 'queued' },
        'under it: one promoted',
      )
    },
  )

  define('continueAsNew: the successor inherits the slot in the same batch', async (store) => {
    const a = admission('k')
    await applyOne(store, create('r1', a, T0, true), T0)
    await admit(store, 'waiter', a, T0 + 1)
    const results = await apply(
      store,
      [
        { ...create('r1-next', { ...a, inheritFrom: 'r1' }, T0 + 2) } as StoreOp,
        {
          type: 'finishRun',
          fence: { runId: 'r1', epoch: 1 },
          status: 'continued',
          output: null,
          error: null,
          continuedTo: 'r1-next',
          admission: { scope: SCOPE, key: 'k' },
        },
      ],
      T0 + 2,
    )
    same(results[0], { status: 'applied', epoch: 0 }, 'successor admitted')
    expectApplied(results[1], 'predecessor continued')
    same(
      await statuses(store, ['r1', 'r1-next', 'waiter']),
      { r1: 'continued', 'r1-next': 'pending', waiter: 'queued' },
      'one slot, one holder',
    )
    // Inheriting from a run that holds nothing is an ordinary admission.
    same(
      await admit(store, 'r9', { ...a, inheritFrom: 'nobody' }, T0 + 3),
      { status: 'applied', epoch: 0, queued: true },
      'no holder: queued like any start',
    )
  })

  define(
    "a stale holder's successor beside the live run: the live run's continued finish promotes",
    async (store) => {
      // Limit 2: P is leased to A, A's lease lapses and B takes P over. A, not knowing, ends
      // P with continueAsNew: the successor S inherits (P is live), A's finish is fenced.
      const a = admission('k', { limit: 2 })
      await applyOne(store, create('P', a, T0, true), T0)
      const byB = await store.claimRuns({
        owner: 'engine-b',
        now: T0 + LEASE_MS + 1,
        leaseMs: LEASE_MS,
        limit: 10,
        runnable: [{ workflow: newRun('x').workflow, version: newRun('x').version }],
      })
      const epochB = byB.claimed.find((r) => r.id === 'P')?.leaseEpoch
      assert.equal(epochB, 2, 'B took P over')
      const continued = (epoch: number): StoreOp[] => [
        create('S', { ...a, inheritFrom: 'P' }, T0 + LEASE_MS + 2),
        {
          type: 'finishRun',
          fence: { runId: 'P', epoch },
          status: 'continued',
          output: null,
          error: null,
          continuedTo: 'S',
          admission: KEY_K,
        },
      ]
      const stale = await apply(store, continued(1), T0 + LEASE_MS + 2)
      same(stale[0], { status: 'applied', epoch: 0 }, 'S inherits from the live P')
      assert.equal(stale[1]?.status, 'fenced', "A's finish is fenced")
      // P and S both count now: a start waits.
      same(
        await admit(store, 'N', a, T0 + LEASE_MS + 3),
        { status: 'applied', epoch: 0, queued: true },
        'N',
      )
      // B reaches the same continueAsNew: S exists; P ends, and its slot goes to N.
      const current = await apply(store, continued(2), T0 + LEASE_MS + 4)
      assert.equal(current[0]?.status, 'exists')
      expectPromoted(current[1] as OpResult, true, "B's continued finish")
      same(
        await statuses(store, ['P', 'S', 'N']),
        { P: 'continued', S: 'pending', N: 'pending' },
        'after',
      )
    },
  )

  define('promoteQueued: the safety net for ends that did not name their key', async (store) => {
    const a = admission('k', { limit: 2 })
    for (const [i, id] of ['r1', 'r2', 'w1', 'w2', 'w3'].entries())
      await admit(store, id, a, T0 + i)
    const { claimed } = await claim(store, { now: T0 + 10 })
    assert.deepEqual(claimed.map((r) => r.id).sort(), ['r1', 'r2'])
    for (const run of claimed) {
      const fence = { runId: run.id, epoch: run.leaseEpoch }
      expectPromoted(await applyOne(store, finishOp(fence, null), T0 + 11), false, `end ${run.id}`)
    }
    same(
      await statuses(store, ['w1', 'w2', 'w3']),
      { w1: 'queued', w2: 'queued', w3: 'queued' },
      'stranded',
    )
    const other = { scope: SCOPE, key: 'never-admitted' }
    assert.equal(await store.promoteQueued([other, KEY_K], T0 + 20), 2, 'two slots were free')
    same(
      await statuses(store, ['w1', 'w2', 'w3']),
      { w1: 'pending', w2: 'pending', w3: 'queued' },
      'in start order',
    )
    assert.equal((await mustGetRun(store, 'w1')).availableAt, T0 + 20)
    assert.equal(await store.promoteQueued([KEY_K], T0 + 21), 0, 'again: no slot is free')
    assert.equal(await store.promoteQueued([], T0 + 22), 0)
    for (const bad of [
      [{ scope: SCOPE }],
      [{ scope: SCOPE, key: '' }],
      'k',
      Array(101).fill(KEY_K),
    ])
      await expectRejection(
        () => store.promoteQueued(bad as never, T0 + 23),
        'E_INVALID_ARGUMENT',
        `promoteQueued(${JSON.stringify(bad).slice(0, 40)})`,
      )
  })

  define('an end naming a key without a row promotes nobody and applies', async (store) => {
    await applyOne(store, create('r1', admission('k'), T0, true), T0)
    const ghost = { scope: SCOPE, key: 'never-admitted' }
    const fence = { runId: 'r1', epoch: 1 }
    expectPromoted(
      await applyOne(
        store,
        { ...(finishOp(fence, null) as object), admission: ghost } as StoreOp,
        T0 + 1,
      ),
      false,
      'finish naming an unknown key',
    )
    await applyOne(store, create('r2', admission('k'), T0 + 2), T0 + 2)
    expectPromoted(
      await applyOne(
        store,
        { type: 'cancelRun', runId: 'r2', error: '{}', admission: ghost },
        T0 + 3,
      ),
      false,
      'cancel naming an unknown key',
    )
  })

  define(
    'requeue of a failed holder re-enters its key: queued when the slot is taken',
    async (store) => {
      const a = admission('k')
      await applyOne(store, create('r1', a, T0, true), T0)
      expectApplied(
        await applyOne(store, finishOp({ runId: 'r1', epoch: 1 }, 'k', 'failed'), T0 + 1),
        'fail',
      )
      await applyOne(store, create('r2', a, T0 + 2, true), T0 + 2)
      const requeued = await store.requeueRun({ runId: 'r1', epoch: 1, resetSeqs: [], now: T0 + 3 })
      same(requeued, { status: 'applied', epoch: 2, positionsReset: 0, queued: true }, 'requeue')
      const run = await mustGetRun(store, 'r1')
      assert.equal(run.status, 'queued')
      assert.equal(run.availableAt, null)
      expectApplied(
        await applyOne(store, finishOp({ runId: 'r2', epoch: 1 }, 'k'), T0 + 4),
        'finish r2',
      )
      same(await statuses(store, ['r1']), { r1: 'pending' }, 'promoted when r2 ended')
      // With the slot free, a requeue is pending at once.
      const f1 = await claimOne(store, 'r1', T0 + 5)
      expectApplied(await applyOne(store, finishOp(f1, 'k', 'failed'), T0 + 6), 'fail again')
      const again = await store.requeueRun({
        runId: 'r1',
        epoch: f1.epoch,
        resetSeqs: [],
        now: T0 + 7,
      })
      same(
        again,
        { status: 'applied', epoch: f1.epoch + 1, positionsReset: 0 },
        'requeue into a free slot',
      )
    },
  )

  define('racing creates on one key never admit more than the limit', async (store) => {
    const limit = 3
    const a = admission('hot', { limit, onFull: 'reject' })
    const results = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        store.applyBatch([create(`race-${i}`, a, T0 + i)], T0 + i),
      ),
    )
    const applied = results.filter(([r]) => r?.status === 'applied').length
    assert.equal(
      applied,
      limit,
      `applied creates: ${JSON.stringify(results.map(([r]) => r?.status))}`,
    )
    const stored = (await store.listRuns({ limit: 100 })).runs.filter((r: RunRecord) =>
      r.id.startsWith('race-'),
    )
    assert.equal(stored.length, limit, 'runs stored')
    for (const [r] of results) if (r?.status === 'full') assert.equal(r.admitted, limit)
  })

  define(
    'racing creates with onFull queue: limit admitted, the rest queued, none lost',
    async (store) => {
      const a = admission('hot', { limit: 2 })
      await Promise.all(
        Array.from({ length: 16 }, (_, i) =>
          store.applyBatch([create(`q-${i}`, a, T0 + i)], T0 + i),
        ),
      )
      const runs = (await store.listRuns({ limit: 100 })).runs
      assert.equal(runs.length, 16)
      assert.equal(runs.filter((r: RunRecord) => r.status === 'pending').length, 2, 'admitted')
      assert.equal(runs.filter((r: RunRecord) => r.status === 'queued').length, 14, 'queued')
    },
  )

  define('a malformed admission is refused and the batch applies nothing', async (store) => {
    const bad: unknown[] = [
      { ...admission('k'), limit: 0 },
      { ...admission('k'), limit: 1.5 },
      { ...admission('k'), limit: Number.NaN },
      { ...admission(''), limit: 1 },
      { ...admission('x'.repeat(257)) },
      { ...admission('k'), onFull: 'drop' },
      { ...admission('k'), maxQueueDepth: -1 },
      { ...admission('k'), scope: 7 },
      { ...admission('k'), __proto__: { limit: 5 }, extra: true },
      null,
    ]
    for (const [i, a] of bad.entries()) {
      await expectRejection(
        () =>
          store.applyBatch(
            [{ type: 'createRun', run: newRun(`ok-${i}`) }, create(`bad-${i}`, a as Admission)],
            T0,
          ),
        'E_INVALID_ARGUMENT',
        `admission ${i}`,
      )
      assert.equal(await store.getRun(`ok-${i}`), null, `batch ${i} applied nothing`)
    }
    // A finish or a cancel naming a key names it as { scope, key }.
    for (const [i, named] of [
      { scope: SCOPE },
      { scope: SCOPE, key: '' },
      'k',
      { scope: SCOPE, key: 'k', limit: 1 },
    ].entries()) {
      const ops: StoreOp[] = [
        { type: 'createRun', run: newRun(`okc-${i}`) },
        { type: 'cancelRun', runId: 'nobody', error: '{}', admission: named as never },
      ]
      await expectRejection(() => store.applyBatch(ops, T0), 'E_INVALID_ARGUMENT', `named key ${i}`)
      assert.equal(
        await store.getRun(`okc-${i}`),
        null,
        `batch with named key ${i} applied nothing`,
      )
    }
  })
}
