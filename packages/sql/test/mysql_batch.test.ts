/**
 * applyBatch and claimRuns on MySQL/MariaDB beyond the conformance suite: the statements
 * (round trips) a batch costs, per-run order across waves, mixed outcomes in one wave,
 * fencing against a concurrent cancel, a create racing an insert, the inbox against a
 * concurrent delivery, concurrent claims and creates from several connections (at
 * REPEATABLE READ too), and connections lost before, during and after commit.
 */
import assert from 'node:assert/strict'
import mysql from 'mysql2/promise'
import type {
  CheckpointRecord,
  CreateRunOp,
  SaveCheckpointOp as SaveOp,
  OpResult,
  RunRecord,
  StateStore,
  StoreOp,
} from '@cairn/core/contracts'
import { createMysqlStore, type MysqlStoreOptions } from '@cairn/sql/mysql'
import { poolOfStore } from '../src/mysql/debug_access.ts'
import { mysqlDialect } from '../src/mysql/dialect.ts'
import { overwriteStatement } from '../src/shared/lone_write.ts'
import { Params } from '../src/shared/params.ts'
import { qualifiedTables } from '../src/shared/tables.ts'
import type { SqlPool } from '../src/shared/driver.ts'
import {
  RACES,
  deliver,
  suspendAndDeliveryInOneBatch,
  type AdminSession,
} from './helpers/inbox_races.ts'
import { MYSQL_URL, adminQuery, mysqlTest, storeInFreshDatabase } from './helpers/mysql.ts'
import { NOTICE_CASES, NOTICE_RACES, childrenInATypicalBatch } from './helpers/notice_cases.ts'
import { MysqlProxy } from './helpers/mysql_proxy.ts'

const T0 = 2_200_000_000_000
const LEASE = { owner: 'engine-a', leaseMs: 30_000 }
const KEY = { workflow: 'w', version: 'v1' }

const create = (id: string, claim = true): StoreOp => ({
  type: 'createRun',
  run: { id, workflow: 'w', version: 'v1', input: '{}', createdAt: T0 },
  ...(claim ? { claim: LEASE } : {}),
})

function checkpoint(runId: string, seq: number, changes: Partial<CheckpointRecord> = {}) {
  return {
    runId,
    seq,
    name: `step-${seq}`,
    kind: 'local' as const,
    status: 'completed' as const,
    attempts: 1,
    order: seq + 1,
    input: null,
    output: JSON.stringify({ seq }),
    error: null,
    wakeAt: null,
    startedAt: T0,
    updatedAt: T0,
    worker: null,
    ...changes,
  }
}

const save = (runId: string, seq: number, epoch = 1, changes = {}): StoreOp => ({
  type: 'saveCheckpoint',
  fence: { runId, epoch },
  checkpoint: checkpoint(runId, seq, changes),
})

const finish = (runId: string, epoch = 1): StoreOp => ({
  type: 'finishRun',
  fence: { runId, epoch },
  status: 'completed',
  output: '"done"',
  error: null,
})

function statements(store: object): number {
  return (poolOfStore.get(store) as SqlPool).statementCount
}

/** Opens a store in a fresh database, runs `body`, closes and drops. */
async function withStore(
  body: (store: StateStore, database: string) => Promise<void>,
  options: Partial<MysqlStoreOptions> = {},
): Promise<void> {
  const { store, database, cleanup } = storeInFreshDatabase(options)
  try {
    await store.open()
    await body(store, database)
  } finally {
    await store.close()
    await cleanup()
  }
}

mysqlTest(
  'a typical engine batch of 75 ops is 6 statements; a two-wave batch is 8 (printed)',
  async () => {
    await withStore(async (store) => {
      const ids = Array.from({ length: 50 }, (_, i) => `run-${String(i).padStart(2, '0')}`)
      await store.applyBatch(
        ids.map((id) => create(id)),
        T0,
      )
      const typical = [
        ...ids.map((id) => save(id, 0)),
        ...ids.slice(0, 10).map((id) => finish(id)),
        ...Array.from({ length: 10 }, (_, i) => create(`new-${i}`)),
        ...Array.from({ length: 5 }, (_, i) => create(`queued-${i}`, false)),
      ]
      let before = statements(store)
      const results = await store.applyBatch(typical, T0 + 1)
      const one = statements(store) - before
      assert.ok(results.every((r) => r.status === 'applied'))
      // START, lock runs, insert checkpoints (no checkpoint read: none is stored at these
      // positions), insert runs, update runs, COMMIT.
      assert.equal(one, 6, 'statements for one wave')
      before = statements(store)
      const twoWaves = ids
        .slice(10)
        .flatMap((id) => [
          save(id, 1, 1, { status: 'retrying', order: null, output: null, wakeAt: T0 + 5 }),
          save(id, 1),
        ])
      const second = await store.applyBatch(twoWaves, T0 + 2)
      const two = statements(store) - before
      assert.ok(second.every((r) => r.status === 'applied'))
      // START; wave 1: lock runs, insert; wave 2 (over the `retrying` records): lock runs, the
      // insert refused on the key (nothing written), lock checkpoints, overwrite; COMMIT.
      assert.equal(two, 8, 'statements for two waves')
      assert.equal((await store.loadCheckpoints('run-49'))[1]?.status, 'completed')
      before = statements(store)
      // The five `queued-*` runs are due.
      await store.claimRuns({ owner: 'x', now: T0 + 3, leaseMs: 1, limit: 2, runnable: [KEY] })
      const claim = statements(store) - before
      // More due than the limit: START, due read, level probe, the level's locking read,
      // UPDATE by key, next available_at, COMMIT.
      assert.equal(claim, 7, 'statements for a claim of a backlog')
      before = statements(store)
      await store.claimRuns({ owner: 'x', now: T0 + 3, leaseMs: 1, limit: 100, runnable: [KEY] })
      // Fewer due than the limit: START, due read, locking read by key, UPDATE, next, COMMIT.
      assert.equal(statements(store) - before, 6, 'statements for a claim taking every due run')
      before = statements(store)
      const [delivered] = await store.applyBatch([deliver('run-49', 'sig-1')], T0 + 4)
      assert.deepEqual(delivered, { status: 'delivered', seq: 1, duplicate: false })
      // START, lock runs, lock dedupe ids, update runs, insert messages, COMMIT.
      assert.equal(statements(store) - before, 6, 'statements for a delivery')
      console.log(
        `statements: one-wave batch (75 ops) ${one}, two-wave batch (80 ops) ${two}, claim ${claim}`,
      )
    })
  },
)

mysqlTest(
  'a batch of one plain create, save or finish is one statement; one it cannot apply goes the usual way',
  async () => {
    await withStore(async (store) => {
      const counted = async (ops: StoreOp[], now: number) => {
        const before = statements(store)
        const results = await store.applyBatch(ops, now)
        return { statuses: results.map((r) => r.status), statements: statements(store) - before }
      }
      // Each one autocommitted statement: an INSERT, an INSERT … SELECT … FOR UPDATE, an UPDATE.
      assert.deepEqual(await counted([create('a')], T0), { statuses: ['applied'], statements: 1 })
      assert.deepEqual(await counted([save('a', 0)], T0), { statuses: ['applied'], statements: 1 })
      const retrying = { status: 'retrying', order: null, output: null, wakeAt: T0 + 5 }
      assert.deepEqual(await counted([save('a', 1, 1, retrying)], T0), {
        statuses: ['applied'],
        statements: 1,
      })
      // The INSERT met the stored `retrying` record (duplicate key); the overwrite applied.
      assert.deepEqual(await counted([save('a', 1)], T0), { statuses: ['applied'], statements: 2 })
      assert.equal((await store.loadCheckpoints('a'))[1]?.status, 'completed')
      // A recorded outcome: the INSERT and the overwrite write nothing; then START, lock runs,
      // the wave's refused insert, lock checkpoints, COMMIT.
      assert.deepEqual(await counted([save('a', 0)], T0), { statuses: ['conflict'], statements: 7 })
      // Another epoch: the statement inserts no row; START, lock runs (the fence), COMMIT.
      assert.deepEqual(await counted([save('a', 2, 2)], T0), {
        statuses: ['fenced'],
        statements: 4,
      })
      // A taken id: the INSERT is refused; the wave locks the run and reads it for `exists`.
      const exists = await counted([create('a')], T0)
      assert.deepEqual(exists.statuses, ['exists'])
      assert.ok(exists.statements > 1, `a refused create went the usual way: ${exists.statements}`)
      assert.deepEqual(await counted([finish('a', 2)], T0), { statuses: ['fenced'], statements: 4 })
      const waiting = { status: 'waiting', order: null, output: null, wakeAt: T0 + 5 }
      await store.applyBatch([save('a', 4, 1, waiting)], T0)
      assert.deepEqual(await counted([finish('a')], T0), { statuses: ['applied'], statements: 1 })
      // A finished run at the fence's epoch: the INSERT finds no running run; the wave reads
      // the fence.
      assert.deepEqual(await counted([save('a', 4)], T0), { statuses: ['fenced'], statements: 4 })
      assert.equal((await store.loadCheckpoints('a'))[2]?.status, 'waiting')
      assert.deepEqual((await store.getRun('a'))?.status, 'completed')
      assert.deepEqual(await counted([save('a', 3)], T0), { statuses: ['fenced'], statements: 4 })
      // Not plain: a create under a singleton key takes the batch's transaction.
      const keyed: CreateRunOp = {
        ...(create('b') as CreateRunOp),
        admission: { scope: 'w', key: 'k', limit: 1, onFull: 'queue', maxQueueDepth: null },
      }
      const admitted = await counted([keyed], T0)
      assert.deepEqual(admitted.statuses, ['applied'])
      assert.ok(
        admitted.statements > 1,
        `a keyed create went the usual way: ${admitted.statements}`,
      )
    })
  },
)

mysqlTest('a batch of one op with a wrongly typed integer is decided the usual way', async () => {
  await withStore(async (store) => {
    await store.applyBatch([create('a')], T0)
    const before = statements(store)
    // The server would read '1' as 1 and apply the save; the fence is decided in JavaScript.
    const stringEpoch = { ...save('a', 0), fence: { runId: 'a', epoch: '1' as unknown as number } }
    assert.deepEqual(
      (await store.applyBatch([stringEpoch], T0)).map((r) => r.status),
      ['fenced'],
    )
    assert.ok(statements(store) - before > 1, 'no lone statement was sent')
    assert.deepEqual(await store.loadCheckpoints('a'), [])
    const stringAttempts = save('a', 0, 1, { attempts: '1' })
    await assert.rejects(store.applyBatch([stringAttempts], T0), { code: 'E_INVALID_ARGUMENT' })
    const halfEpoch = { ...finish('a'), fence: { runId: 'a', epoch: 1.5 } }
    assert.deepEqual(
      (await store.applyBatch([halfEpoch], T0)).map((r) => r.status),
      ['fenced'],
    )
    assert.equal((await store.getRun('a'))?.status, 'running')
  })
})

mysqlTest('interleaved runs in one batch keep each run in order across waves', async () => {
  await withStore(async (store) => {
    const ops: StoreOp[] = [
      create('a'),
      create('b'),
      save('a', 0),
      save('b', 0),
      finish('a'),
      save('b', 1),
      save('a', 1),
      { type: 'cancelRun', runId: 'b', error: '"stop"' },
      save('b', 2),
      { type: 'renewLease', fence: { runId: 'a', epoch: 1 }, leaseMs: 1_000 },
      create('a'),
    ]
    const results = await store.applyBatch(ops, T0)
    const summary = results.map((r: OpResult) =>
      r.status === 'fenced' ? `fenced:${r.current?.status}/${r.current?.epoch}` : r.status,
    )
    assert.deepEqual(summary, [
      'applied',
      'applied',
      'applied',
      'applied',
      'applied',
      'applied',
      'fenced:completed/1',
      'applied',
      'fenced:cancelled/2',
      'fenced:completed/1',
      'exists',
    ])
    assert.deepEqual(results[7], { status: 'applied', epoch: 2 })
    assert.deepEqual(
      (await store.loadCheckpoints('a')).map((c) => c.seq),
      [0],
    )
    assert.deepEqual(
      (await store.loadCheckpoints('b')).map((c) => c.seq),
      [0, 1],
    )
    const exists = results[10]
    assert.equal(exists?.status === 'exists' && exists.run.status, 'completed')
  })
})

mysqlTest('applied, fenced, conflict, exists, terminal and not_found in one wave', async () => {
  await withStore(async (store) => {
    await store.applyBatch([create('a'), create('b'), create('c'), create('e'), save('a', 0)], T0)
    await store.applyBatch([finish('b'), { type: 'cancelRun', runId: 'c', error: '"x"' }], T0 + 1)
    const results = await store.applyBatch(
      [
        save('a', 0, 1, { output: '"second"' }),
        save('a', 1),
        save('a', 2, 2),
        {
          type: 'suspendRun',
          fence: { runId: 'a', epoch: 1 },
          wakeAt: T0 + 9,
          waitingOn: 'x',
          inboxSeen: 0,
        },
        save('b', 0),
        { type: 'cancelRun', runId: 'b', error: '"x"' },
        { type: 'releaseRun', fence: { runId: 'c', epoch: 1 }, availableAt: T0 },
        create('e'),
        create('d'),
        { type: 'cancelRun', runId: 'nope', error: '"x"' },
      ],
      T0 + 2,
    )
    assert.deepEqual(results[0], { status: 'conflict', existing: checkpoint('a', 0) })
    assert.deepEqual(results[1], { status: 'applied' })
    assert.deepEqual(results[2], { status: 'fenced', current: { status: 'running', epoch: 1 } })
    assert.deepEqual(results[3], { status: 'applied', availableAt: T0 + 9 })
    assert.deepEqual(results[4], { status: 'fenced', current: { status: 'completed', epoch: 1 } })
    assert.deepEqual(results[5], {
      status: 'terminal',
      current: { status: 'completed', epoch: 1 },
    })
    assert.deepEqual(results[6], { status: 'fenced', current: { status: 'cancelled', epoch: 2 } })
    assert.equal(results[7]?.status === 'exists' && results[7].run.id, 'e')
    assert.deepEqual(results[8], { status: 'applied', epoch: 1 })
    assert.deepEqual(results[9], { status: 'not_found' })
    const a = await store.getRun('a')
    assert.deepEqual([a?.status, a?.availableAt, a?.waitingOn], ['waiting', T0 + 9, 'x'])
  })
})

mysqlTest('a batch retried after an unknown outcome gets exists, conflict and fenced', async () => {
  await withStore(async (store) => {
    const first = [create('a'), save('a', 0)]
    assert.deepEqual(
      (await store.applyBatch(first, T0)).map((r) => r.status),
      ['applied', 'applied'],
    )
    assert.deepEqual(
      (await store.applyBatch(first, T0)).map((r) => r.status),
      ['exists', 'conflict'],
    )
    const second = [save('a', 1), finish('a')]
    assert.deepEqual(
      (await store.applyBatch(second, T0)).map((r) => r.status),
      ['applied', 'applied'],
    )
    assert.deepEqual(
      (await store.applyBatch(second, T0)).map((r) => r.status),
      ['fenced', 'fenced'],
    )
  })
})

mysqlTest(
  'a save waiting on a concurrent cancel is fenced by it, not written beside it',
  async () => {
    await withStore(async (store, database) => {
      await store.applyBatch([create('a')], T0)
      const admin = await mysql.createConnection({ uri: MYSQL_URL })
      try {
        await admin.query('START TRANSACTION')
        await admin.query(`SELECT 1 FROM \`${database}\`.cairn_runs WHERE id = 'a' FOR UPDATE`)
        const saving = store.applyBatch([save('a', 0)], T0 + 1)
        await new Promise((resolve) => setTimeout(resolve, 200))
        await admin.query(
          `UPDATE \`${database}\`.cairn_runs SET status = 'cancelled', lease_epoch = 2, available_at = NULL WHERE id = 'a'`,
        )
        await admin.query('COMMIT')
        assert.deepEqual(await saving, [
          { status: 'fenced', current: { status: 'cancelled', epoch: 2 } },
        ])
        assert.deepEqual(await store.loadCheckpoints('a'), [])
      } finally {
        await admin.end()
      }
    })
  },
)

mysqlTest(
  'a lone overwrite reads its run with a lock: a concurrent cancel fences it, nothing written',
  async () => {
    await withStore(async (store, database) => {
      await store.applyBatch([create('a')], T0)
      const waiting = { status: 'waiting', order: null, output: null, wakeAt: T0 + 5 }
      await store.applyBatch([save('a', 0, 1, waiting)], T0)
      const pool = poolOfStore.get(store) as SqlPool
      const ctx = { pool, dialect: mysqlDialect, tables: qualifiedTables(mysqlDialect, database) }
      // The second statement of a lone save that met the record (lone_write.ts), sent while the
      // run is locked by a cancel: it must wait for it and then see the new epoch.
      const overwrite = overwriteStatement(ctx, new Params(mysqlDialect), save('a', 0) as SaveOp)
      const admin = await mysql.createConnection({ uri: MYSQL_URL })
      try {
        await admin.query('START TRANSACTION')
        await admin.query(`SELECT 1 FROM \`${database}\`.cairn_runs WHERE id = 'a' FOR UPDATE`)
        const writing = pool.query(overwrite)
        await new Promise((resolve) => setTimeout(resolve, 200))
        await admin.query(
          `UPDATE \`${database}\`.cairn_runs SET status = 'cancelled', lease_epoch = 2, available_at = NULL WHERE id = 'a'`,
        )
        await admin.query('COMMIT')
        assert.equal((await writing).affected, 0)
        assert.equal((await store.loadCheckpoints('a'))[0]?.status, 'waiting')
      } finally {
        await admin.end()
      }
      // Nor on a run finished at the fence's epoch, or under another epoch.
      await store.applyBatch([create('b'), save('b', 0, 1, waiting)], T0)
      await store.applyBatch([finish('b')], T0)
      const late = overwriteStatement(ctx, new Params(mysqlDialect), save('b', 0) as SaveOp)
      assert.equal((await pool.query(late)).affected, 0)
      await store.applyBatch([create('c'), save('c', 0, 1, waiting)], T0)
      const stale = overwriteStatement(ctx, new Params(mysqlDialect), save('c', 0, 2) as SaveOp)
      assert.equal((await pool.query(stale)).affected, 0)
      const current = overwriteStatement(ctx, new Params(mysqlDialect), save('c', 0) as SaveOp)
      assert.ok((await pool.query(current)).affected >= 1, 'the overwrite under the lease applies')
      assert.equal((await store.loadCheckpoints('c'))[0]?.status, 'completed')
    })
  },
)

mysqlTest('a create racing a concurrent insert of the same id reports exists', async () => {
  await withStore(async (store, database) => {
    const admin = await mysql.createConnection({ uri: MYSQL_URL })
    try {
      await admin.query('START TRANSACTION')
      await admin.query(`INSERT INTO \`${database}\`.cairn_runs (id, workflow, version, status, input,
        created_at, updated_at, available_at, lease_epoch, turns)
        VALUES ('a', 'other', 'v9', 'pending', '"theirs"', 1, 1, 1, 0, 0)`)
      const creating = store.applyBatch([create('a'), create('b')], T0)
      await new Promise((resolve) => setTimeout(resolve, 200))
      await admin.query('COMMIT')
      const [a, b] = await creating
      assert.equal(a?.status === 'exists' && a.run.input, '"theirs"')
      assert.deepEqual(b, { status: 'applied', epoch: 1 })
    } finally {
      await admin.end()
    }
  })
})

for (const [title, race] of RACES) {
  mysqlTest(title, async () => {
    await withStore((store, database) =>
      withAdmin((admin) => race(store, admin, raceTables(database))),
    )
  })
}

mysqlTest('a suspend and a delivery of one run keep batch order', async () => {
  await withStore(suspendAndDeliveryInOneBatch)
})

for (const [title, body] of NOTICE_CASES) mysqlTest(title, () => withStore(body))

for (const [title, race] of NOTICE_RACES) {
  mysqlTest(title, async () => {
    await withStore((store, database) =>
      withAdmin((admin) => race(store, admin, raceTables(database))),
    )
  })
}

mysqlTest(
  'children telling their parents add 3 statements to a typical batch (printed)',
  async () => {
    await withStore(async (store) => {
      const used = await childrenInATypicalBatch(store, () => statements(store), save)
      console.log(`# mysql: typical batch with notices: ${used} statements`)
      // The 6 of a typical batch, plus a locking read of the notices' dedupe ids, the UPDATE
      // counting them on their parents and the INSERT storing them.
      assert.equal(used, 9)
    })
  },
)

function raceTables(database: string) {
  return { runs: `\`${database}\`.cairn_runs`, messages: `\`${database}\`.cairn_messages` }
}

async function withAdmin(body: (admin: AdminSession) => Promise<void>): Promise<void> {
  const admin = await mysql.createConnection({ uri: MYSQL_URL })
  try {
    await body(admin)
  } finally {
    await admin.end()
  }
}

/** Claims from `claimers` in parallel, rounds until nothing is left; every claimed run by id. */
async function claimAll(
  claimers: readonly StateStore[],
  parallel: number,
  now: number,
): Promise<string[]> {
  const claimed: string[] = []
  for (let round = 0; round < 100; round++) {
    const results = await Promise.all(
      Array.from({ length: parallel }, (_, i) =>
        (claimers[i % claimers.length] as StateStore).claimRuns({
          owner: `engine-${i}`,
          now,
          leaseMs: 60_000,
          limit: 7,
          runnable: [KEY],
        }),
      ),
    )
    const ids = results.flatMap((r) => r.claimed.map((run: RunRecord) => run.id))
    if (ids.length === 0 && results.every((r) => r.nextAvailableAt !== null)) return claimed
    claimed.push(...ids)
  }
  assert.fail('claims did not drain the queue in 100 rounds')
}

function assertEachOnce(claimed: string[], count: number): void {
  const twice = claimed.filter((id, i) => claimed.indexOf(id) !== i)
  assert.deepEqual(twice, [], 'runs claimed twice')
  assert.equal(claimed.length, count, 'every run claimed once')
}

mysqlTest(
  'concurrent claims from 8 connections at REPEATABLE READ never return a run twice',
  async () => {
    // A pool handed in: its sessions keep the server default, REPEATABLE READ.
    const pool = mysql.createPool({ uri: MYSQL_URL, connectionLimit: 8 })
    try {
      await withStore(
        async (store) => {
          const [[isolation]] = (await pool.query({
            sql: 'SELECT @@SESSION.tx_isolation',
            rowsAsArray: true,
          })) as unknown as [[[string]]]
          assert.equal(isolation[0], 'REPEATABLE-READ')
          const count = 300
          for (let from = 0; from < count; from += 100) {
            await store.applyBatch(
              Array.from({ length: 100 }, (_, i) => create(`run-${from + i}`, false)),
              T0,
            )
          }
          assertEachOnce(await claimAll([store], 8, T0 + 1), count)
        },
        { pool },
      )
    } finally {
      await pool.end()
    }
  },
)

mysqlTest(
  'concurrent claims from 4 stores (own pools, READ COMMITTED) never return a run twice',
  async () => {
    await withStore(async (store, database) => {
      const others = Array.from({ length: 3 }, () =>
        createMysqlStore({ uri: MYSQL_URL, database, max: 2 }),
      )
      try {
        await Promise.all(others.map((other) => other.open()))
        const count = 300
        for (let from = 0; from < count; from += 100) {
          await store.applyBatch(
            Array.from({ length: 100 }, (_, i) => create(`run-${from + i}`, false)),
            T0,
          )
        }
        assertEachOnce(await claimAll([store, ...others], 8, T0 + 1), count)
      } finally {
        await Promise.all(others.map((other) => other.close()))
      }
    })
  },
)

mysqlTest('4 stores creating time-ordered runs at once never deadlock beyond retries', async () => {
  await withStore(async (_, database) => {
    const stores = Array.from({ length: 4 }, () =>
      createMysqlStore({ uri: MYSQL_URL, database, max: 2 }),
    )
    try {
      await Promise.all(stores.map((store) => store.open()))
      // Ids sorting after every existing one, as UUIDv7 run ids do: the same gap of the index.
      await Promise.all(
        stores.map(async (store, s) => {
          for (let b = 0; b < 25; b++) {
            const ids = Array.from({ length: 10 }, (_, i) => `${T0 + b}-${s}-${i}`)
            const results = await store.applyBatch(
              ids.flatMap((id) => [create(id), save(id, 0)]),
              T0 + b,
            )
            assert.ok(results.every((r) => r.status === 'applied'))
          }
        }),
      )
      const [[runs]] = (await adminQuery(`SELECT COUNT(*) FROM \`${database}\`.cairn_runs`)) as [
        [number],
      ]
      assert.equal(runs, 1_000)
    } finally {
      await Promise.all(stores.map((store) => store.close()))
    }
  })
})

async function expectOutcomeUnknown(call: Promise<unknown>): Promise<void> {
  await assert.rejects(call, (err: { code?: string; details?: Record<string, unknown> }) => {
    assert.equal(err.code, 'E_STORE_FAILURE')
    assert.equal(err.details?.outcome, 'unknown')
    return true
  })
}

/** A store reaching the server through a proxy that can cut its connection at a statement. */
async function withProxiedStore(
  body: (store: StateStore, proxy: MysqlProxy) => Promise<void>,
): Promise<void> {
  const proxy = await MysqlProxy.start()
  try {
    await withStore((store) => body(store, proxy), { uri: proxy.url })
  } finally {
    await proxy.close()
  }
}

mysqlTest(
  'a connection lost during COMMIT rejects with outcome unknown; retrying the same ops is safe',
  async () => {
    await withProxiedStore(async (store, proxy) => {
      await store.applyBatch([create('a')], T0)
      const ops = [save('a', 0), create('b')]
      // The server commits; the answer never arrives.
      const cut = proxy.cutNext(/^COMMIT/, 'after')
      await expectOutcomeUnknown(store.applyBatch(ops, T0 + 1))
      await cut
      assert.deepEqual(
        (await store.applyBatch(ops, T0 + 1)).map((r) => r.status),
        ['conflict', 'exists'],
      )
      // The connection drops before the server reads COMMIT: nothing was applied.
      const next = [save('a', 1), create('c')]
      const cutBefore = proxy.cutNext(/^COMMIT/, 'before')
      await expectOutcomeUnknown(store.applyBatch(next, T0 + 2))
      await cutBefore
      assert.deepEqual(
        (await store.applyBatch(next, T0 + 2)).map((r) => r.status),
        ['applied', 'applied'],
      )
    })
  },
)

mysqlTest(
  'a connection lost during an autocommitted write rejects with outcome unknown',
  async () => {
    await withProxiedStore(async (store, proxy) => {
      await store.applyBatch([create('a')], T0)
      const cut = proxy.cutNext(/^UPDATE/, 'after')
      await expectOutcomeUnknown(store.reclaimOwned(LEASE.owner, T0 + 1))
      await cut
      assert.equal((await store.getRun('a'))?.availableAt, T0 + 1, 'the update did commit')
      assert.equal(await store.reclaimOwned(LEASE.owner, T0 + 1), 1, 'and is safe to repeat')
    })
  },
)

mysqlTest(
  'a batch of one op whose connection is lost rejects with outcome unknown; the retry settles it',
  async () => {
    await withProxiedStore(async (store, proxy) => {
      await store.applyBatch([create('a')], T0)
      // One autocommitted statement: its commit is in flight as soon as it is sent.
      const cut = proxy.cutNext(/^INSERT/, 'after')
      await expectOutcomeUnknown(store.applyBatch([save('a', 0)], T0 + 1))
      await cut
      assert.deepEqual(
        (await store.applyBatch([save('a', 0)], T0 + 1)).map((r) => r.status),
        ['conflict'],
        'the save had committed',
      )
      const cutBefore = proxy.cutNext(/^UPDATE/, 'before')
      await expectOutcomeUnknown(store.applyBatch([finish('a')], T0 + 2))
      await cutBefore
      assert.deepEqual(
        (await store.applyBatch([finish('a')], T0 + 2)).map((r) => r.status),
        ['applied'],
        'the finish had not reached the server',
      )
    })
  },
)

mysqlTest(
  'a connection lost inside a transaction before COMMIT is retried: nothing was applied',
  async () => {
    await withProxiedStore(async (store, proxy) => {
      await store.applyBatch([create('a')], T0)
      const cut = proxy.cutNext(/^INSERT/, 'after')
      const results = await store.applyBatch([save('a', 0), create('b')], T0 + 1)
      await cut
      assert.deepEqual(
        results.map((r) => r.status),
        ['applied', 'applied'],
      )
      assert.equal((await store.loadCheckpoints('a')).length, 1)
    })
  },
)

mysqlTest('a pooled connection killed while idle is replaced; the process survives', async () => {
  await withStore(
    async (store) => {
      await store.applyBatch([create('a')], T0)
      // One connection in the pool: the one this returns is the one the next call would use.
      const pool = poolOfStore.get(store) as SqlPool
      const id = (await pool.query({ text: 'SELECT CONNECTION_ID()', values: [] })).rows[0]?.[0]
      await adminQuery(`KILL ${Number(id)}`)
      await new Promise((resolve) => setTimeout(resolve, 100))
      assert.equal((await store.getRun('a'))?.id, 'a')
      assert.deepEqual(await store.applyBatch([finish('a')], T0 + 1), [{ status: 'applied' }])
      const next = (await pool.query({ text: 'SELECT CONNECTION_ID()', values: [] })).rows[0]?.[0]
      assert.notEqual(next, id, 'a new connection')
    },
    { max: 1 },
  )
})
