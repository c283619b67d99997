/**
 * Postgres's admission writes stay retry-safe and deadlock-free (found by a review of the
 * in-wave admission, each case failing on that first version):
 * - a batch whose in-wave admission declines writes nothing before the transactional pass, so
 *   when the pass fails and the store retries the whole call, nothing is replayed (no `exists`
 *   or `fenced` for what the call itself wrote, no "nothing applied" with a run written);
 * - ends naming a key in a multi-wave batch take the pass (keys locked before any run), never
 *   a key lock after the first wave's run locks;
 * - the read that settles an end's key after its commit is tried again when it fails.
 */
import assert from 'node:assert/strict'
import pg from 'pg'
import type { Admission, StateStore, StoreOp } from '@cairn/core/contracts'
import { createPostgresStore } from '@cairn/sql/postgres'
import { poolOfStore } from '../src/postgres/debug_access.ts'
import type { SqlPool } from '../src/shared/driver.ts'
import { KEY, LIMIT_ONE, T0, finishOp, holdCommits, statusOf } from './helpers/admission_hold.ts'
import {
  PG_URL,
  adminQuery,
  pgTest,
  randomSchema,
  storeInFreshSchema,
  terminateWhen,
  untilWaitingForLock,
} from './helpers/postgres.ts'

const ROOM: Admission = { scope: 's', key: 'room', limit: 5, onFull: 'queue', maxQueueDepth: null }
const FRESH: Admission = {
  scope: 's',
  key: 'fresh',
  limit: 1,
  onFull: 'queue',
  maxQueueDepth: null,
}

function create(id: string, admission: Admission, claim = false): StoreOp {
  return {
    type: 'createRun',
    run: { id, workflow: 'sync', version: 'v1', input: '{}', createdAt: T0 },
    admission,
    ...(claim ? { claim: { owner: 'engine-a', leaseMs: 60_000 } } : {}),
  }
}

const deliver = (runId: string, dedupeId: string): StoreOp => ({
  type: 'deliverMessage',
  message: { runId, kind: 'signal', name: 'poke', dedupeId, payload: '1' },
})

/**
 * A store on a pool of its own (tagged, so its backend can be terminated) whose batch's pass
 * waits for another session's uncommitted insert of the key `fresh`, and loses its connection.
 */
async function passLosesItsConnection(batch: (store: StateStore) => StoreOp[]) {
  const tag = `cairn-atomicity-${Math.random().toString(36).slice(2, 10)}`
  const pool = new pg.Pool({ connectionString: PG_URL, max: 2, application_name: tag })
  pool.on('error', () => undefined)
  const schema = randomSchema()
  const store = createPostgresStore({ pool, schema })
  const admin = new pg.Client({ connectionString: PG_URL })
  await admin.connect()
  try {
    await store.open()
    await store.applyBatch([create('seed', ROOM)], T0)
    await store.applyBatch(
      [
        {
          type: 'createRun',
          run: { id: 'x', workflow: 'plain', version: 'v1', input: '{}', createdAt: T0 },
          claim: { owner: 'engine-a', leaseMs: 60_000 },
        },
      ],
      T0,
    )
    await admin.query('BEGIN')
    await admin.query(
      `INSERT INTO "${schema}".cairn_admission_keys (scope, admission_key, lim, next_seq)
        VALUES ('s', 'fresh', 1, 0)`,
    )
    const results = store.applyBatch(batch(store), T0 + 1)
    await terminateWhen(tag, `wait_event_type = 'Lock'`)
    await admin.query('ROLLBACK')
    return await results
  } finally {
    await admin.end().catch(() => undefined)
    await store.close()
    await pool.end()
    await adminQuery(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
  }
}

pgTest(
  'a pass that fails after a declined in-wave admission is retried whole: all applied once',
  async () => {
    const [a, b] = await passLosesItsConnection(() => [create('a', ROOM), create('b', FRESH)])
    assert.deepEqual(
      [a, b],
      [
        { status: 'applied', epoch: 0 },
        { status: 'applied', epoch: 0 },
      ],
    )
  },
)

pgTest(
  'the same retry reports a finish riding with the creates as applied, not fenced',
  async () => {
    const [x, b] = await passLosesItsConnection(() => [finishOp('x'), create('b', FRESH)])
    assert.deepEqual([x, b], [{ status: 'applied' }, { status: 'applied', epoch: 0 }])
  },
)

pgTest('a pass that keeps failing leaves nothing written, as its failure says', async () => {
  const { store, cleanup } = storeInFreshSchema()
  try {
    await store.open()
    await store.applyBatch([create('seed', ROOM)], T0)
    const pool = poolOfStore.get(store) as SqlPool
    pool.transaction = async () => {
      throw Object.assign(new Error('deadlock detected'), { code: '40P01' })
    }
    await assert.rejects(store.applyBatch([create('a', ROOM), create('b', FRESH)], T0 + 1), {
      code: 'E_STORE_FAILURE',
    })
    assert.equal(await store.getRun('a'), null, 'a was not written')
  } finally {
    await store.close()
    await cleanup()
  }
})

pgTest(
  'an end naming its key in a later wave locks the key before any run (no deadlock)',
  async () => {
    const { store, schema, cleanup } = storeInFreshSchema()
    const other = createPostgresStore({ connectionString: PG_URL, schema })
    const failures: unknown[] = []
    let release = () => undefined as void
    try {
      await store.open()
      await other.open()
      await store.applyBatch([create('a', { ...LIMIT_ONE, limit: 2 }, true)], T0)
      for (const s of [store, other]) {
        const pool = poolOfStore.get(s) as SqlPool
        const classify = pool.classify.bind(pool)
        pool.classify = (error) => {
          failures.push(error)
          return classify(error)
        }
      }
      // The batch's transaction stops before its second wave (the finish: `lv`), its first wave
      // (the delivery) having locked run a.
      const held = holdCommits(poolOfStore.get(store) as SqlPool, (text) => text.includes('lv AS'))
      release = held.openAll
      const ending = store.applyBatch([deliver('a', 'm1'), finishOp('a', KEY)], T0 + 1)
      await held.held.reached
      const creating = other.applyBatch(
        [create('d', { ...LIMIT_ONE, limit: 2 }), deliver('a', 'm2')],
        T0 + 2,
      )
      await untilWaitingForLock(schema)
      held.openAll()
      const [ended, created] = await Promise.all([ending, creating])
      assert.deepEqual(
        failures.map((e) => String(e)),
        [],
        'no statement failed (a deadlock is retried, at the cost of deadlock_timeout)',
      )
      assert.deepEqual(ended?.[1], { status: 'applied' })
      assert.deepEqual(created?.[0], { status: 'applied', epoch: 0 })
    } finally {
      release()
      await other.close()
      await store.close()
      await cleanup()
    }
  },
)

pgTest(
  'the read settling an end is tried again when it fails: the end promotes its waiter',
  async () => {
    const { store, cleanup } = storeInFreshSchema()
    try {
      await store.open()
      await store.applyBatch([create('a', LIMIT_ONE, true)], T0)
      await store.applyBatch([create('w', LIMIT_ONE)], T0 + 1)
      assert.equal(await statusOf(store, 'w'), 'queued')
      const pool = poolOfStore.get(store) as SqlPool
      const query = pool.query.bind(pool)
      let failed = 0
      pool.query = async (statement) => {
        if (failed === 0 && statement.text.includes('< k.lim')) {
          failed++
          throw Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })
        }
        return query(statement)
      }
      // The end's statement sees w queued in its snapshot and flags the key; its settling read
      // fails once.
      const [end] = await store.applyBatch([finishOp('a', KEY)], T0 + 2)
      assert.equal(failed, 1, 'the settling read failed once')
      assert.deepEqual(end, { status: 'applied', promoted: true })
      assert.equal(await statusOf(store, 'w'), 'pending')
    } finally {
      await store.close()
      await cleanup()
    }
  },
)

pgTest(
  'a declined wave carrying a delivery takes the pass whole (its observations are not read)',
  async () => {
    const { store, cleanup } = storeInFreshSchema()
    try {
      await store.open()
      const plain: StoreOp = {
        type: 'createRun',
        run: { id: 'x', workflow: 'plain', version: 'v1', input: '{}', createdAt: T0 },
      }
      await store.applyBatch([create('a', LIMIT_ONE, true), plain], T0)
      // The key is full: the in-wave statement declines, writing nothing.
      const results = await store.applyBatch([create('w', LIMIT_ONE), deliver('x', 'm1')], T0 + 1)
      assert.deepEqual(results[0], { status: 'applied', epoch: 0, queued: true })
      assert.equal(results[1]?.status, 'delivered')
      assert.equal(await statusOf(store, 'w'), 'queued')
    } finally {
      await store.close()
      await cleanup()
    }
  },
)

for (const admission of [ROOM, undefined])
  pgTest(
    `a read explaining a refusal after an autocommitted wave is tried again, not the wave (${admission ? 'admitted creates' : 'plain creates'})`,
    async () => {
      const { store, cleanup } = storeInFreshSchema()
      const make = (id: string, claim = false): StoreOp => ({
        type: 'createRun',
        run: { id, workflow: 'sync', version: 'v1', input: '{}', createdAt: T0 },
        ...(admission ? { admission } : {}),
        ...(claim ? { claim: { owner: 'engine-a', leaseMs: 60_000 } } : {}),
      })
      try {
        await store.open()
        await store.applyBatch([make('seed'), make('x', true)], T0)
        const pool = poolOfStore.get(store) as SqlPool
        const query = pool.query.bind(pool)
        let waveRan = false
        let failed = 0
        pool.query = async (statement) => {
          if (statement.text.includes('ci AS (INSERT')) waveRan = true
          else if (waveRan && failed === 0 && statement.writes !== true) {
            failed++ // the read of the run `seed` met, after the wave committed
            throw Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })
          }
          return query(statement)
        }
        const results = await store.applyBatch([finishOp('x'), make('a'), make('seed')], T0 + 1)
        assert.equal(failed, 1, 'the read after the commit failed once')
        assert.deepEqual(
          results.map((r) => r.status),
          ['applied', 'applied', 'exists'],
          'what this call wrote is reported as written by it',
        )
      } finally {
        await store.close()
        await cleanup()
      }
    },
  )
