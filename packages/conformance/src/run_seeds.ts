/**
 * createRun's `seed`: checkpoints a new run starts with (a fork's copied outcomes), written in
 * the create's transaction iff the run is created, and refused when malformed.
 */
import type { CheckpointRecord, CreateRunOp, StateStore } from '@cairn/core/contracts'
import { LEASE_MS, OWNER_A, T0, checkpoint, newRun } from './fixtures.ts'
import { expectRejection, same, type Define } from './harness.ts'
import { applyOne, checkpoints, claim, mustGetRun } from './store_calls.ts'

function seeded(id: string, seed: CheckpointRecord[], claimed = false): CreateRunOp {
  const op: CreateRunOp = { type: 'createRun', run: newRun(id, { createdAt: T0 }), seed }
  return claimed ? { ...op, claim: { owner: OWNER_A, leaseMs: LEASE_MS } } : op
}

/** A delivered outcome of every shape a fork copies: a failure, a child, non-dense positions. */
function forkSeed(runId: string): CheckpointRecord[] {
  return [
    checkpoint(runId, 0, { order: 2, startedAt: T0 - 50, updatedAt: T0 - 40 }),
    checkpoint(runId, 1, {
      status: 'failed',
      output: null,
      error: '{"name":"Error","message":"no"}',
      attempts: 3,
      order: 1,
    }),
    checkpoint(runId, 3, {
      kind: 'child',
      name: 'child:pay',
      output: '{"paid":true}',
      order: 3,
      wakeAt: T0 - 10,
    }),
  ]
}

async function expectNothing(store: StateStore, id: string, what: string) {
  same([await store.getRun(id), await store.loadCheckpoints(id)], [null, []], what)
}

export function runSeedTests(define: Define): void {
  define('a created run starts with its seed checkpoints, exactly as given', async (store) => {
    const seed = forkSeed('fork')
    same(await applyOne(store, seeded('fork', seed), T0), { status: 'applied', epoch: 0 }, 'create')
    same(await checkpoints(store, 'fork'), seed, 'checkpoints')
  })

  define(
    'a claimed seeded run is driven on: later positions save, seeded ones conflict',
    async (store) => {
      const seed = forkSeed('fork')
      same(
        await applyOne(store, seeded('fork', seed, true), T0),
        { status: 'applied', epoch: 1 },
        'create claimed',
      )
      const fence = { runId: 'fork', epoch: 1 }
      const later = checkpoint('fork', 2, { order: 4 })
      same(
        await applyOne(store, { type: 'saveCheckpoint', fence, checkpoint: later }, T0 + 1),
        { status: 'applied' },
        'a position the seed left out',
      )
      const replay = checkpoint('fork', 0, { output: '"other"', order: 9 })
      same(
        await applyOne(store, { type: 'saveCheckpoint', fence, checkpoint: replay }, T0 + 1),
        { status: 'conflict', existing: seed[0] },
        'a seeded position keeps its recorded outcome',
      )
      same(
        (await checkpoints(store, 'fork')).map((cp) => cp.seq),
        [0, 1, 2, 3],
        'positions',
      )
    },
  )

  define('a long seed is written whole (2,500 checkpoints)', async (store) => {
    const seed = Array.from({ length: 2_500 }, (_, seq) => checkpoint('long', seq))
    same(await applyOne(store, seeded('long', seed), T0), { status: 'applied', epoch: 0 }, 'create')
    same(await checkpoints(store, 'long'), seed, 'checkpoints')
  })

  define('an existing id writes no seed', async (store) => {
    same(
      await applyOne(store, seeded('fork', []), T0),
      { status: 'applied', epoch: 0 },
      'first create, empty seed',
    )
    const run = await mustGetRun(store, 'fork')
    same(
      await applyOne(store, seeded('fork', forkSeed('fork')), T0 + 1),
      { status: 'exists', run },
      'second create',
    )
    same(await checkpoints(store, 'fork'), [], 'no checkpoint written')
  })

  define(
    'a second create of the id in the same batch meets the run with its tags, origin and seed',
    async (store) => {
      const seed = forkSeed('fork')
      const origin = { kind: 'fork', runId: 'source', fromSeq: 4 } as const
      const first: CreateRunOp = {
        ...seeded('fork', seed),
        run: { ...newRun('fork', { createdAt: T0 }), tags: ['t'], origin },
      }
      const again: CreateRunOp = { type: 'createRun', run: newRun('fork', { createdAt: T0 }) }
      const [created, second] = await store.applyBatch([first, again], T0)
      same(created, { status: 'applied', epoch: 0 }, 'first create')
      const stored = await mustGetRun(store, 'fork')
      same([stored.tags, stored.origin], [['t'], origin], 'stored tags and origin')
      same(second, { status: 'exists', run: stored }, 'second create')
      same(await checkpoints(store, 'fork'), seed, 'the seed, once')
    },
  )

  define('seeds of several creates in one batch go to their own runs', async (store) => {
    const a = forkSeed('a')
    const b = [checkpoint('b', 0)]
    const results = await store.applyBatch(
      [seeded('a', a), { type: 'createRun', run: newRun('plain') }, seeded('b', b, true)],
      T0,
    )
    same(
      results.map((r) => r.status),
      ['applied', 'applied', 'applied'],
      'results',
    )
    same(
      [
        await checkpoints(store, 'a'),
        await checkpoints(store, 'plain'),
        await checkpoints(store, 'b'),
      ],
      [a, [], b],
      'checkpoints',
    )
    same(
      (await claim(store, { now: T0 + LEASE_MS + 1 })).claimed.map((r) => r.id).sort(),
      ['a', 'b', 'plain'],
      'claimable',
    )
  })

  define(
    'a malformed seed is refused with E_INVALID_ARGUMENT, the batch applying nothing',
    async (store) => {
      const cases: Array<[string, CheckpointRecord[]]> = [
        ['another run', [checkpoint('other', 0)]],
        ['a waiting checkpoint', [checkpoint('s', 0, { status: 'waiting', order: null })]],
        ['a retrying checkpoint', [checkpoint('s', 0, { status: 'retrying', order: null })]],
        ['no order', [checkpoint('s', 0, { order: null })]],
        ['order 0', [checkpoint('s', 0, { order: 0 })]],
        ['a negative seq', [checkpoint('s', -1)]],
        ['a seq twice', [checkpoint('s', 0), checkpoint('s', 0, { order: 5 })]],
        ['an order twice', [checkpoint('s', 0, { order: 1 }), checkpoint('s', 1, { order: 1 })]],
      ]
      for (const [what, seed] of cases) {
        await expectRejection(
          () => store.applyBatch([{ type: 'createRun', run: newRun('ok') }, seeded('s', seed)], T0),
          'E_INVALID_ARGUMENT',
          what,
        )
        await expectNothing(store, 's', `${what}: run`)
        await expectNothing(store, 'ok', `${what}: the other create`)
      }
    },
  )
}
