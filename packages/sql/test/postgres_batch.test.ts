/**
 * applyBatch on Postgres beyond the conformance suite: how batches are cut into waves, the
 * statements (round trips) a batch costs, per-run order across waves, mixed outcomes in one
 * wave, fencing against a concurrent cancel, and connection losses before and during commit.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import pg from 'pg'
import type { CheckpointRecord, OpResult, StateStore, StoreOp } from '@cairn/core/contracts'
import { createPostgresStore, type PostgresStoreOptions } from '@cairn/sql/postgres'
import { poolOfStore } from '../src/postgres/debug_access.ts'
import { PortablePostgresStore } from './helpers/portable_postgres_store.ts'
import type { SqlPool } from '../src/shared/driver.ts'
import { planWaves } from '../src/shared/wave_plan.ts'
import { RACES, deliver, suspendAndDeliveryInOneBatch } from './helpers/inbox_races.ts'
import {
  NOTICE_CASES,
  NOTICE_RACES,
  childrenInATypicalBatch,
  finishTelling,
} from './helpers/notice_cases.ts'
import {
  PG_URL,
  adminQuery,
  pgTest,
  storeInFreshSchema,
  terminateWhen,
} from './helpers/postgres.ts'

const T0 = 2_200_000_000_000
const LEASE = { owner: 'engine-a', leaseMs: 30_000 }

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

const label = (op: StoreOp) =>
  op.type === 'saveCheckpoint'
    ? `${op.fence.runId}#${op.checkpoint.seq}`
    : `${op.type}:${'runId' in op ? op.runId : 'run' in op ? op.run.id : 'message' in op ? op.message.runId : op.fence.runId}`

function statements(store: object): number {
  return (poolOfStore.get(store) as SqlPool).statementCount
}

type MakeStore = (options: PostgresStoreOptions) => StateStore

/** The Postgres writers (one statement per wave), and the portable ones MySQL uses. */
const VARIANTS: ReadonlyArray<[name: string, make: MakeStore]> = [
  ['postgres', createPostgresStore],
  ['portable', (options) => new PortablePostgresStore(options)],
]

/** Opens a store in a fresh schema, runs `body`, closes and drops. */
async function withStore(
  body: (store: StateStore, schema: string) => Promise<void>,
  pool?: pg.Pool,
  make: MakeStore = createPostgresStore,
): Promise<void> {
  const { store, schema, cleanup } = storeInFreshSchema(pool ? { pool } : {}, make)
  try {
    await store.open()
    await body(store, schema)
  } finally {
    await store.close()
    await cleanup()
  }
}

void test('waves keep each run in order; saves of distinct seqs and the run write after them share one', () => {
  const ops = [
    create('a'),
    save('b', 0),
    save('b', 1),
    finish('b'),
    save('a', 0),
    save('a', 0, 1, { status: 'retrying' }),
    save('c', 0),
    finish('c'),
    save('c', 1),
  ]
  const waves = planWaves(ops).map((wave) => wave.map(({ op }) => label(op)))
  assert.deepEqual(waves, [
    ['createRun:a', 'b#0', 'b#1', 'finishRun:b', 'c#0', 'finishRun:c'],
    ['a#0', 'c#1'],
    ['a#0'],
  ])
})

void test("a notice shares its parent's wave with saves and other notices, never with the parent's run writes", () => {
  const ops = [
    save('p', 0),
    finishTelling('c1', 'p'),
    finishTelling('c2', 'p'),
    save('p', 1),
    suspendP(),
    finishTelling('c3', 'p'),
    save('q', 0),
    finish('q'),
    finishTelling('c4', 'q'),
    finishTelling('q', 'q'),
  ]
  const waves = planWaves(ops).map((wave) => wave.map(({ op }) => label(op)))
  assert.deepEqual(waves, [
    ['p#0', 'finishRun:c1', 'finishRun:c2', 'p#1', 'q#0', 'finishRun:q'],
    ['suspendRun:p', 'finishRun:c4'],
    ['finishRun:c3', 'finishRun:q'],
  ])
})

function suspendP(): StoreOp {
  return {
    type: 'suspendRun',
    fence: { runId: 'p', epoch: 1 },
    wakeAt: null,
    waitingOn: 'x',
    inboxSeen: 0,
  }
}

pgTest('a typical engine batch of 50 runs is one statement; a two-wave batch is four', async () => {
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
    assert.equal(statements(store) - before, 1, 'statements for one wave (autocommit)')
    assert.ok(results.every((r) => r.status === 'applied'))
    before = statements(store)
    const twoWaves = ids
      .slice(10)
      .flatMap((id) => [
        save(id, 1, 1, { status: 'retrying', order: null, output: null, wakeAt: T0 + 5 }),
        save(id, 1),
      ])
    const second = await store.applyBatch(twoWaves, T0 + 2)
    assert.equal(statements(store) - before, 4, 'BEGIN, two waves, COMMIT')
    assert.ok(second.every((r) => r.status === 'applied'))
    assert.equal((await store.loadCheckpoints('run-49'))[1]?.status, 'completed')
  })
})

for (const [variant, make] of VARIANTS) {
  pgTest(
    `interleaved runs in one batch keep each run in order across waves (${variant})`,
    async () => {
      await withStore(
        async (store) => {
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
        },
        undefined,
        make,
      )
    },
  )
}

for (const [variant, make] of VARIANTS) {
  pgTest(
    `applied, fenced, conflict, exists, terminal and not_found in one wave (${variant})`,
    async () => {
      await withStore(
        async (store) => {
          await store.applyBatch(
            [create('a'), create('b'), create('c'), create('e'), save('a', 0)],
            T0,
          )
          await store.applyBatch(
            [finish('b'), { type: 'cancelRun', runId: 'c', error: '"x"' }],
            T0 + 1,
          )
          const before = statements(store)
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
          // One statement for the wave, then one read of the stored runs (`exists`) and two of the
          // stored checkpoints (`conflict`) it reports: the runs' keys, then the checkpoints by
          // their own key (checkpoints_at.ts). The cancels make it a transaction (BEGIN, COMMIT)
          // that first reads the queues their runs have items in (queue_writes.ts).
          if (variant === 'postgres') assert.equal(statements(store) - before, 7, 'statements')
          assert.deepEqual(results[0], { status: 'conflict', existing: checkpoint('a', 0) })
          assert.deepEqual(results[1], { status: 'applied' })
          assert.deepEqual(results[2], {
            status: 'fenced',
            current: { status: 'running', epoch: 1 },
          })
          assert.deepEqual(results[3], { status: 'applied', availableAt: T0 + 9 })
          assert.deepEqual(results[4], {
            status: 'fenced',
            current: { status: 'completed', epoch: 1 },
          })
          assert.deepEqual(results[5], {
            status: 'terminal',
            current: { status: 'completed', epoch: 1 },
          })
          assert.deepEqual(results[6], {
            status: 'fenced',
            current: { status: 'cancelled', epoch: 2 },
          })
          assert.equal(results[7]?.status === 'exists' && results[7].run.id, 'e')
          assert.deepEqual(results[8], { status: 'applied', epoch: 1 })
          assert.deepEqual(results[9], { status: 'not_found' })
        },
        undefined,
        make,
      )
    },
  )
}

for (const [variant, make] of VARIANTS) {
  pgTest(
    `a batch retried after an unknown outcome gets exists, conflict and fenced (${variant})`,
    async () => {
      await withStore(
        async (store) => {
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
          // The run finished: the retried save is fenced before its seq is even looked at.
          assert.deepEqual(
            (await store.applyBatch(second, T0)).map((r) => r.status),
            ['fenced', 'fenced'],
          )
        },
        undefined,
        make,
      )
    },
  )
}

for (const [variant, make] of VARIANTS) {
  pgTest(
    `a save waiting on a concurrent cancel is fenced by it, not written beside it (${variant})`,
    async () => {
      await withStore(
        async (store, schema) => {
          await store.applyBatch([create('a')], T0)
          const admin = new pg.Client({ connectionString: PG_URL })
          await admin.connect()
          try {
            await admin.query('BEGIN')
            await admin.query(`SELECT 1 FROM "${schema}".cairn_runs WHERE id = 'a' FOR UPDATE`)
            const saving = store.applyBatch([save('a', 0)], T0 + 1)
            await new Promise((resolve) => setTimeout(resolve, 200))
            await admin.query(
              `UPDATE "${schema}".cairn_runs SET status = 'cancelled', lease_epoch = 2, available_at = NULL WHERE id = 'a'`,
            )
            await admin.query('COMMIT')
            assert.deepEqual(await saving, [
              { status: 'fenced', current: { status: 'cancelled', epoch: 2 } },
            ])
            assert.deepEqual(await store.loadCheckpoints('a'), [])
          } finally {
            await admin.end()
          }
        },
        undefined,
        make,
      )
    },
  )
}

pgTest('deliveries and saves consuming messages ride in the one statement of a wave', async () => {
  await withStore(async (store) => {
    const ids = Array.from({ length: 20 }, (_, i) => `run-${String(i).padStart(2, '0')}`)
    await store.applyBatch(
      ids.map((id) => create(id)),
      T0,
    )
    await store.applyBatch(
      ids.map((id) => deliver(id, `sig-${id}`)),
      T0 + 1,
    )
    const consuming = (id: string): StoreOp => ({
      type: 'saveCheckpoint',
      fence: { runId: id, epoch: 1 },
      checkpoint: checkpoint(id, 0, { name: 'go', kind: 'signal', output: '"ours"' }),
      consumes: 1,
    })
    const batch = [
      ...ids.slice(0, 10).map(consuming),
      ...ids.slice(10).map((id) => save(id, 0)),
      ...ids.slice(10, 15).map((id) => finish(id)),
      ...ids.slice(15).map((id) => deliver(id, `sig-${id}`)),
      create('new-0', false),
    ]
    const before = statements(store)
    const results = await store.applyBatch(batch, T0 + 2)
    assert.equal(statements(store) - before, 1, 'statements for one wave (autocommit)')
    assert.deepEqual(
      results.slice(25, 30).map((r) => r.status === 'delivered' && r.duplicate),
      [true, true, true, true, true],
    )
    assert.deepEqual(await store.loadInbox('run-00'), [])
    assert.equal((await store.loadInbox('run-10')).length, 1)
  })
})

for (const [variant, make] of VARIANTS) {
  for (const [title, race] of RACES) {
    pgTest(`${title} (${variant})`, async () => {
      const body = (store: StateStore, schema: string) =>
        withAdmin((admin) => race(store, admin, raceTables(schema)))
      await withStore(body, undefined, make)
    })
  }

  pgTest(`a suspend and a delivery of one run keep batch order (${variant})`, async () => {
    await withStore(suspendAndDeliveryInOneBatch, undefined, make)
  })
}

for (const [variant, make] of VARIANTS) {
  for (const [title, body] of NOTICE_CASES) {
    pgTest(`${title} (${variant})`, () => withStore(body, undefined, make))
  }
  for (const [title, race] of NOTICE_RACES) {
    pgTest(`${title} (${variant})`, async () => {
      const body = (store: StateStore, schema: string) =>
        withAdmin((admin) => race(store, admin, raceTables(schema)))
      await withStore(body, undefined, make)
    })
  }
}

pgTest('children telling their parents in a typical batch: still one statement', async () => {
  await withStore(async (store) => {
    const used = await childrenInATypicalBatch(store, () => statements(store), save)
    assert.equal(used, 1, 'statements for one wave (autocommit)')
  })
})

function raceTables(schema: string) {
  return { runs: `"${schema}".cairn_runs`, messages: `"${schema}".cairn_messages` }
}

async function withAdmin(body: (admin: pg.Client) => Promise<void>): Promise<void> {
  const admin = new pg.Client({ connectionString: PG_URL })
  await admin.connect()
  try {
    await body(admin)
  } finally {
    await admin.end()
  }
}

/** A pool of its own with a unique application_name, so a test can find its backend. */
function taggedPool(): { pool: pg.Pool; tag: string } {
  const tag = `cairn-test-${Math.random().toString(36).slice(2, 10)}`
  const pool = new pg.Pool({ connectionString: PG_URL, max: 2, application_name: tag })
  pool.on('error', () => undefined)
  return { pool, tag }
}

async function expectOutcomeUnknown(call: Promise<unknown>): Promise<void> {
  await assert.rejects(call, (err: { code?: string; details?: Record<string, unknown> }) => {
    assert.equal(err.code, 'E_STORE_FAILURE')
    assert.equal(err.details?.outcome, 'unknown')
    return true
  })
}

pgTest(
  'a connection lost during COMMIT rejects with outcome unknown; retrying is safe',
  async () => {
    const { pool, tag } = taggedPool()
    try {
      await withStore(async (store, schema) => {
        await store.applyBatch([create('a')], T0)
        // A deferred trigger makes COMMIT slow enough to cut the connection in the middle of it.
        await adminQuery(`CREATE FUNCTION "${schema}".slow() RETURNS trigger LANGUAGE plpgsql
        AS 'BEGIN PERFORM pg_sleep(5); RETURN NULL; END'`)
        await adminQuery(`CREATE CONSTRAINT TRIGGER slow AFTER INSERT ON "${schema}".cairn_checkpoints
        DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "${schema}".slow()`)
        const twoWaves = [
          save('a', 0, 1, { status: 'retrying', order: null, output: null }),
          save('a', 0),
        ]
        const writing = expectOutcomeUnknown(store.applyBatch(twoWaves, T0 + 1))
        await terminateWhen(tag, `query = 'COMMIT' AND wait_event = 'PgSleep'`)
        await writing
        await adminQuery(`DROP TRIGGER slow ON "${schema}".cairn_checkpoints`)
        const retried = await store.applyBatch(twoWaves, T0 + 1)
        assert.deepEqual(
          retried.map((r) => r.status),
          ['applied', 'applied'],
        )
      }, pool)
    } finally {
      await pool.end()
    }
  },
)

pgTest('a connection lost during an autocommitted wave rejects with outcome unknown', async () => {
  const { pool, tag } = taggedPool()
  try {
    await withStore(async (store, schema) => {
      await store.applyBatch([create('a')], T0)
      const admin = new pg.Client({ connectionString: PG_URL })
      await admin.connect()
      try {
        await admin.query('BEGIN')
        await admin.query(`SELECT 1 FROM "${schema}".cairn_runs WHERE id = 'a' FOR UPDATE`)
        const finishing = expectOutcomeUnknown(store.applyBatch([finish('a')], T0 + 1))
        await terminateWhen(tag, `wait_event_type = 'Lock'`)
        await finishing
      } finally {
        await admin.query('ROLLBACK')
        await admin.end()
      }
      assert.deepEqual(await store.applyBatch([finish('a')], T0 + 2), [{ status: 'applied' }])
    }, pool)
  } finally {
    await pool.end()
  }
})

pgTest(
  'a connection lost inside a transaction before COMMIT is retried: nothing was applied',
  async () => {
    const { pool, tag } = taggedPool()
    try {
      await withStore(async (store, schema) => {
        await store.applyBatch([create('a')], T0)
        const admin = new pg.Client({ connectionString: PG_URL })
        await admin.connect()
        let writing: Promise<OpResult[]>
        try {
          await admin.query('BEGIN')
          await admin.query(`SELECT 1 FROM "${schema}".cairn_runs WHERE id = 'a' FOR UPDATE`)
          writing = store.applyBatch(
            [save('a', 0, 1, { status: 'retrying' }), save('a', 0)],
            T0 + 1,
          )
          await terminateWhen(tag, `wait_event_type = 'Lock'`)
        } finally {
          await admin.query('ROLLBACK')
          await admin.end()
        }
        assert.deepEqual(
          (await writing).map((r) => r.status),
          ['applied', 'applied'],
        )
      }, pool)
    } finally {
      await pool.end()
    }
  },
)

for (const [variant, make] of VARIANTS) {
  pgTest(
    `a create racing a concurrent insert of the same id reports exists (${variant})`,
    async () => {
      await withStore(
        async (store, schema) => {
          const admin = new pg.Client({ connectionString: PG_URL })
          await admin.connect()
          try {
            await admin.query('BEGIN')
            await admin.query(`INSERT INTO "${schema}".cairn_runs (id, workflow, version, status, input,
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
        },
        undefined,
        make,
      )
    },
  )
}
