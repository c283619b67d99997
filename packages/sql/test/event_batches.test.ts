/**
 * Event accumulators beyond the conformance suite: appends racing each other on one slot and
 * racing claims, on every SQL store (several connections to one database each); and what an
 * append with adds, a claim and a delete cost on Postgres.
 */
import assert from 'node:assert/strict'
import type { EventBatchAdd, StateStore } from '@cairn/core/contracts'
import { poolOfStore } from '../src/postgres/debug_access.ts'
import type { SqlPool } from '../src/shared/driver.ts'
import { appendsRacingClaims, racingAppends } from './helpers/event_batch_races.ts'
import { adminQuery as pgAdmin, pgTest, storeInFreshSchema } from './helpers/postgres.ts'
import { adminQuery as mysqlAdmin, mysqlTest, storeInFreshDatabase } from './helpers/mysql.ts'
import { racesOnEverySqlStore, type RaceBody } from './helpers/two_pool_races.ts'

const CASES: ReadonlyArray<[title: string, body: RaceBody]> = [
  [
    '60 appends at once to one slot lose no add; batches fill in turn',
    (s) => racingAppends(s, 60, 7),
  ],
  [
    'appends racing claims: each event reaches one claimed accumulator',
    (s) => appendsRacingClaims(s, 60),
  ],
]

racesOnEverySqlStore(CASES)

const T0 = 2_200_000_000_000
const KEEP_ALL = { before: 0, limit: 100 }

pgTest('postgres: the statements an append with adds, a claim and a delete cost', async () => {
  const { store, cleanup } = storeInFreshSchema()
  const pool = poolOfStore.get(store) as SqlPool
  const cost = async <T>(call: () => Promise<T>): Promise<[number, T]> => {
    const before = pool.statementCount
    const result = await call()
    return [pool.statementCount - before, result]
  }
  const add = (openId: string): EventBatchAdd => ({
    workflow: 'digest',
    key: '',
    mode: 'batch',
    windowMs: 1000,
    maxSize: 2,
    maxWaitMs: null,
    openId,
  })
  const append = (i: number) =>
    store.appendEvent(
      { id: `e${i}`, name: 'order.paid', payload: '{}', publishedAt: T0 + i },
      KEEP_ALL,
      [add(`acc-${i}`)],
    )
  const claim = (now: number) =>
    store.claimEventBatches({ now, limit: 10, owner: 'a', leaseMs: 1000, workflows: ['digest'] })
  try {
    await store.open()
    // BEGIN, the event's insert (with the slot's lock), the locking read of the open
    // accumulator, the id check, the writes (one statement), COMMIT; the prune.
    assert.equal((await cost(() => append(1)))[0], 7, 'an add opening an accumulator')
    assert.equal((await cost(() => append(2)))[0], 6, 'an add joining one (no id to check)')
    const [idle, none] = await cost(() => claim(T0))
    assert.deepEqual(
      [idle, none],
      [1, { claimed: [], nextAt: T0 + 2 }],
      'a claim of nothing due (the full batch is due at T0 + 2)',
    )
    const [taking, taken] = await cost(() => claim(T0 + 2))
    assert.equal(taking, 2, 'a claim: one statement, then the payloads')
    assert.deepEqual(taken.claimed[0]?.eventIds, ['e1', 'e2'])
    assert.deepEqual(await cost(() => store.deleteEventBatch('digest', '', 'acc-1')), [1, true])
  } finally {
    await store.close()
    await cleanup()
  }
})

/**
 * The prune runs after the append's commit: a prune the database refuses (a trigger here, a
 * real failure of the server) must not fail — and so retry — an append that is durable, whose
 * retry would find the event and report nothing joined.
 */
const refusingPrune: ReadonlyArray<
  [name: string, run: (test: (store: StateStore) => Promise<void>) => Promise<void>]
> = [
  [
    'postgres',
    async (body) => {
      const { store, schema, cleanup } = storeInFreshSchema()
      try {
        await store.open()
        await pgAdmin(`CREATE FUNCTION ${schema}.refuse() RETURNS trigger LANGUAGE plpgsql AS
          $$ BEGIN RAISE EXCEPTION 'prune refused'; END $$`)
        await pgAdmin(`CREATE TRIGGER refuse BEFORE DELETE ON ${schema}.cairn_events
          FOR EACH ROW EXECUTE FUNCTION ${schema}.refuse()`)
        await body(store)
      } finally {
        await store.close()
        await cleanup()
      }
    },
  ],
  [
    'mysql',
    async (body) => {
      const { store, database, cleanup } = storeInFreshDatabase()
      try {
        await store.open()
        await mysqlAdmin(`CREATE TRIGGER \`${database}\`.refuse BEFORE DELETE ON
          \`${database}\`.cairn_events FOR EACH ROW
          SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'prune refused'`)
        await body(store)
      } finally {
        await store.close()
        await cleanup()
      }
    },
  ],
]

for (const [name, run] of refusingPrune)
  (name === 'postgres' ? pgTest : mysqlTest)(
    `${name}: a prune the database refuses leaves the append durable and its adds reported`,
    () =>
      run(async (store) => {
        const add: EventBatchAdd = {
          workflow: 'digest',
          key: '',
          mode: 'batch',
          windowMs: 1000,
          maxSize: 5,
          maxWaitMs: null,
          openId: 'acc-1',
        }
        const event = (i: number) => ({
          id: `e${i}`,
          name: 'order.paid',
          payload: `{"i":${i}}`,
          publishedAt: T0 + i,
        })
        await store.appendEvent(event(1), KEEP_ALL, [add])
        // Prunes e1 (published before T0 + 2): refused by the trigger.
        const second = await store.appendEvent(event(2), { before: T0 + 2, limit: 10 }, [add])
        assert.equal(second.appended, true)
        assert.deepEqual(
          second.batches.map((b) => [b.id, b.size]),
          [['acc-1', 2]],
          'the add is reported as made',
        )
        assert.deepEqual(
          (await store.loadEvents('order.paid', 0)).map((e) => e.id),
          ['e1', 'e2'],
          'both durable; the refused prune deleted nothing',
        )
        const retried = await store.appendEvent(event(2), KEEP_ALL, [add])
        assert.equal(retried.appended, false, 'a retry of the same event appends nothing')
        const { claimed } = await store.claimEventBatches({
          now: T0 + 5_000,
          limit: 10,
          owner: 'a',
          leaseMs: 1000,
          workflows: ['digest'],
        })
        assert.deepEqual(claimed[0]?.eventIds, ['e1', 'e2'], 'each payload joined once')
      }),
  )
