/**
 * Values on MySQL/MariaDB beyond the conformance suite: ids compared byte for byte (no
 * trailing-space padding, no case folding), integers beyond 2^53, payloads near and beyond
 * max_allowed_packet, and values refused before they could be altered.
 */
import assert from 'node:assert/strict'
import type { StateStore, StoreOp } from '@cairn/core/contracts'
import { adminQuery, mysqlTest, storeInFreshDatabase } from './helpers/mysql.ts'

const T0 = 2_200_000_000_000

const create = (id: string, input = '{}', workflow = 'w'): StoreOp => ({
  type: 'createRun',
  run: { id, workflow, version: 'v1', input, createdAt: T0 },
})

/** A save at position 0 of `runId` under epoch 1: a `retrying` record or an outcome. */
const save = (runId: string, status: 'retrying' | 'completed', output: string | null): StoreOp => ({
  type: 'saveCheckpoint',
  fence: { runId, epoch: 1 },
  checkpoint: {
    runId,
    seq: 0,
    name: 'step-0',
    kind: 'local',
    status,
    attempts: 1,
    order: status === 'completed' ? 1 : null,
    input: null,
    output,
    error: status === 'retrying' ? '"boom"' : null,
    wakeAt: status === 'retrying' ? T0 + 5 : null,
    startedAt: T0,
    updatedAt: T0,
    worker: null,
  },
})

async function withStore(
  body: (store: StateStore, database: string) => Promise<void>,
): Promise<void> {
  const { store, database, cleanup } = storeInFreshDatabase()
  try {
    await store.open()
    await body(store, database)
  } finally {
    await store.close()
    await cleanup()
  }
}

mysqlTest('ids and names differing by a trailing space or by case are different runs', async () => {
  await withStore(async (store) => {
    const ids = ['a', 'a ', 'A', 'a\u00a0']
    const results = await store.applyBatch(
      ids.map((id) => create(id, JSON.stringify(id))),
      T0,
    )
    assert.deepEqual(
      results.map((r) => r.status),
      ['applied', 'applied', 'applied', 'applied'],
    )
    for (const id of ids) assert.equal((await store.getRun(id))?.input, JSON.stringify(id))
    // Code point order: 'A' < 'a' < 'a ' < 'a\u00a0'; newest first lists them reversed.
    assert.deepEqual(
      (await store.listRuns({})).runs.map((r) => r.id),
      ['a\u00a0', 'a ', 'a', 'A'],
    )
    await store.applyBatch([create('other', '{}', 'W')], T0)
    const claim = await store.claimRuns({
      owner: 'e',
      now: T0,
      leaseMs: 1_000,
      limit: 10,
      runnable: [{ workflow: 'W', version: 'v1' }],
    })
    assert.deepEqual(
      claim.claimed.map((r) => r.id),
      ['other'],
      'workflow W, not w',
    )
  })
})

mysqlTest(
  'an integer beyond 2^53 in the database is a loud failure, never a rounded number',
  async () => {
    await withStore(async (store, database) => {
      await store.applyBatch([create('run-1')], T0)
      await adminQuery(`UPDATE \`${database}\`.cairn_runs SET available_at = 9007199254740993`)
      await assert.rejects(store.getRun('run-1'), (err: { code?: string; message: string }) => {
        assert.equal(err.code, 'E_STORE_FAILURE')
        assert.match(err.message, /9007199254740993/)
        return true
      })
    })
  },
)

mysqlTest('a raw NUL and 4-byte characters in a payload round-trip', async () => {
  await withStore(async (store) => {
    const input = 'a\u0000b\u{1F600}'
    await store.applyBatch([create('run-1', input)], T0)
    assert.equal((await store.getRun('run-1'))?.input, input)
  })
})

mysqlTest(
  'a payload beyond max_allowed_packet is refused before it is sent (E_STORE_FAILURE); smaller ones pass',
  async () => {
    await withStore(async (store) => {
      const [[limit]] = (await adminQuery('SELECT @@max_allowed_packet')) as [[number]]
      const large = JSON.stringify('x'.repeat(Math.floor(limit / 3)))
      await store.applyBatch([create('large', large)], T0)
      assert.equal((await store.getRun('large'))?.input, large, `${large.length} characters`)
      const tooLarge = JSON.stringify('x'.repeat(limit))
      const started = performance.now()
      await assert.rejects(
        store.applyBatch([create('too-large', tooLarge)], T0),
        (err: { code?: string; message: string; details?: Record<string, unknown> }) => {
          assert.equal(err.code, 'E_STORE_FAILURE')
          assert.match(err.message, /max_allowed_packet/)
          assert.equal(err.details?.outcome, 'not_applied')
          assert.equal(err.details?.errno, 1153)
          return true
        },
      )
      assert.ok(performance.now() - started < 5_000, 'refused at once')
      assert.equal(await store.getRun('too-large'), null)
      assert.equal((await store.getRun('large'))?.id, 'large', 'the store still works')
    })
  },
)

mysqlTest(
  'saves that fit as a new-save INSERT and an overwrite UPDATE but not as one INSERT still apply',
  async () => {
    await withStore(async (store) => {
      const [[limit]] = (await adminQuery('SELECT @@max_allowed_packet')) as [[number]]
      const big = JSON.stringify('x'.repeat(Math.floor(limit * 0.55)))
      const claimed = (id: string): StoreOp => ({
        type: 'createRun',
        run: { id, workflow: 'w', version: 'v1', input: '{}', createdAt: T0 },
        claim: { owner: 'engine-a', leaseMs: 30_000 },
      })
      await store.applyBatch([claimed('a'), claimed('b')], T0)
      await store.applyBatch([save('b', 'retrying', null)], T0 + 1)
      // One wave: a's position 0 is new, b's overwrites its `retrying` record. Together they
      // are over the packet limit; the wave's saves go out read first, as two statements.
      const results = await store.applyBatch(
        [save('a', 'completed', big), save('b', 'completed', big)],
        T0 + 2,
      )
      assert.deepEqual(
        results.map((r) => r.status),
        ['applied', 'applied'],
      )
      for (const id of ['a', 'b']) {
        const [stored] = await store.loadCheckpoints(id)
        assert.equal(stored?.status, 'completed')
        assert.equal(stored?.output?.length, big.length)
      }
    })
  },
)

mysqlTest('values MySQL would alter are refused before anything is sent', async () => {
  await withStore(async (store) => {
    const refused: StoreOp[][] = [
      [create('lone-\ud800')],
      [create('ok', '"\udfff"')],
      [
        {
          ...create('ok'),
          run: { ...(create('ok') as { run: object }).run, createdAt: NaN },
        } as StoreOp,
      ],
      [
        {
          ...create('ok'),
          run: { ...(create('ok') as { run: object }).run, createdAt: 1.5 },
        } as StoreOp,
      ],
    ]
    for (const ops of refused) {
      await assert.rejects(store.applyBatch(ops, T0), { code: 'E_INVALID_ARGUMENT' })
    }
    assert.deepEqual((await store.listRuns({})).runs, [])
  })
})
