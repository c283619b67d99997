/**
 * Schedules beyond the conformance suite: claims racing across several stores (pools) on one
 * database, and firing loops racing puts, on every SQL store; what each call costs in
 * statements on Postgres and MySQL; and the plan Postgres settles on for the claim (a named
 * statement's generic plan) walking the due index.
 */
import assert from 'node:assert/strict'
import type { SchedulePut, StateStore } from '@cairn/core/contracts'
import { poolOfStore as mysqlPoolOf } from '../src/mysql/debug_access.ts'
import { poolOfStore as pgPoolOf } from '../src/postgres/debug_access.ts'
import { postgresDialect } from '../src/postgres/dialect.ts'
import { scheduleClaimStatement } from '../src/postgres/schedule_claims.ts'
import type { SqlPool } from '../src/shared/driver.ts'
import { qualifiedTables } from '../src/shared/tables.ts'
import { mysqlTest, storeInFreshDatabase } from './helpers/mysql.ts'
import { PG_URL, adminQuery as pgAdmin, pgTest, storeInFreshSchema } from './helpers/postgres.ts'
import { firingLoops, racingClaims } from './helpers/schedule_races.ts'
import { racesOnEverySqlStore, type RaceBody } from './helpers/two_pool_races.ts'

const CASES: ReadonlyArray<[title: string, body: RaceBody]> = [
  ['8 claims at once over 2 stores take each due schedule once', (s) => racingClaims(s, 40, 8, 7)],
  [
    'firing loops racing puts: counters add up to the advances applied',
    (s) => firingLoops(s, 6, 40),
  ],
]

racesOnEverySqlStore(CASES)

const T0 = 2_200_000_000_000

function put(id: string, extra: Partial<SchedulePut> = {}): SchedulePut {
  return {
    id,
    workflow: 'report',
    version: null,
    spec: '{}',
    paused: false,
    nextAt: T0,
    now: T0,
    ...extra,
  }
}

/** Statements each call costs (BEGIN and COMMIT count), in call order. */
async function costs(store: StateStore, pool: SqlPool): Promise<Record<string, number>> {
  const counted: Record<string, number> = {}
  const cost = async <T>(name: string, call: () => Promise<T>): Promise<T> => {
    const before = pool.statementCount
    const result = await call()
    counted[name] = pool.statementCount - before
    return result
  }
  const claim = (now: number) =>
    store.claimDueSchedules({ now, owner: 'a', leaseMs: 1000, limit: 10, workflows: ['report'] })
  await cost('put (create)', () => store.putSchedule(put('s', { nextAt: T0 + 5 })))
  await cost('put (update)', () => store.putSchedule(put('s', { nextAt: T0 + 10 })))
  await cost('get', () => store.getSchedule('s'))
  await cost('list', () => store.listSchedules({ limit: 10 }))
  assert.deepEqual(await cost('claim (none due)', () => claim(T0)), {
    claimed: [],
    nextAt: T0 + 10,
  })
  const { claimed } = await cost('claim (one due)', () => claim(T0 + 10))
  assert.equal(claimed.length, 1)
  const advance = {
    id: 's',
    owner: 'a',
    revision: 2,
    nextAt: T0 + 20,
    lastWindow: T0 + 10,
    lastRunId: 'sch:s:x',
    bufferedWindow: null,
    fired: 1,
    skipped: 0,
    now: T0 + 11,
  }
  assert.equal(await cost('advance', () => store.advanceSchedule(advance)), 'applied')
  assert.equal(await cost('advance (stale)', () => store.advanceSchedule(advance)), 'stale')
  assert.equal(await cost('delete', () => store.deleteSchedule('s')), true)
  return counted
}

pgTest('postgres: one statement per schedule call', async () => {
  const { store, cleanup } = storeInFreshSchema()
  try {
    await store.open()
    const counted = await costs(store, pgPoolOf.get(store) as SqlPool)
    assert.deepEqual(counted, {
      'put (create)': 1,
      'put (update)': 1,
      get: 1,
      list: 1,
      'claim (none due)': 1,
      'claim (one due)': 1,
      advance: 1,
      'advance (stale)': 1,
      delete: 1,
    })
  } finally {
    await store.close()
    await cleanup()
  }
})

mysqlTest('mysql: what each schedule call costs in statements', async () => {
  const { store, cleanup } = storeInFreshDatabase()
  try {
    await store.open()
    const counted = await costs(store, mysqlPoolOf.get(store) as SqlPool)
    assert.deepEqual(counted, {
      // BEGIN, the upsert, the row read back, COMMIT.
      'put (create)': 4,
      'put (update)': 4,
      get: 1,
      list: 1,
      // The next due time, read without a transaction.
      'claim (none due)': 1,
      // That read; BEGIN, the locking read, the lease, the next due time, COMMIT.
      'claim (one due)': 6,
      advance: 1,
      'advance (stale)': 1,
      delete: 1,
    })
  } finally {
    await store.close()
    await cleanup()
  }
})

pgTest("postgres: the claim's generic plan walks the due index (20,000 schedules)", async () => {
  const { store, schema, cleanup } = storeInFreshSchema()
  try {
    await store.open()
    const table = `"${schema}".cairn_schedules`
    // Most not due yet, some paused or ended, of several workflows; 50 due ones of 'report'.
    await pgAdmin(`INSERT INTO ${table} (id, workflow, version, spec, paused, next_at,
          fired, skipped, revision, created_at, updated_at)
        SELECT 's' || n, (ARRAY['report', 'billing', 'mail', 'sync'])[1 + n % 4], NULL, '{}',
          n % 10 = 0, CASE WHEN n % 7 = 0 THEN NULL
            WHEN n < 200 THEN ${T0} - n ELSE ${T0} + n * 1000 END,
          0, 0, 1, ${T0}, ${T0}
        FROM generate_series(1, 20000) AS n`)
    await pgAdmin(`ANALYZE ${table}`)
    const tables = qualifiedTables(postgresDialect, schema)
    const ctx = { pool: pgPoolOf.get(store) as SqlPool, dialect: postgresDialect, tables }
    const request = { now: T0, owner: 'a', leaseMs: 30_000, limit: 10, workflows: ['report'] }
    const statement = scheduleClaimStatement(ctx, request)
    const values = statement.values.map((v) => (Array.isArray(v) ? `{${v.join(',')}}` : v))
    const plan = await explainGeneric(statement.text, values)
    if (process.env.CAIRN_SHOW_PLANS === '1') console.log(plan)
    const scans = plan.match(/(Seq|Index|Index Only|Bitmap Heap) Scan (using \S+ )?on \S+( \w+)?/g)
    assert.deepEqual(
      scans,
      [
        'Index Scan using cairn_schedules_due on cairn_schedules',
        'Index Scan using cairn_schedules_pkey on cairn_schedules s',
        'Index Only Scan using cairn_schedules_due on cairn_schedules x',
      ],
      `the due index (claim, nextAt) and the primary key (lease), never the table:\n${plan}`,
    )
  } finally {
    await store.close()
    await cleanup()
  }
})

/** EXPLAIN of `text`'s generic plan (the plan a named statement settles on) for `values`. */
async function explainGeneric(text: string, values: readonly unknown[]): Promise<string> {
  const pg = (await import('pg')).default
  const client = new pg.Client({ connectionString: PG_URL })
  await client.connect()
  try {
    await client.query('SET plan_cache_mode = force_generic_plan')
    await client.query(`PREPARE claim AS ${text}`)
    const args = values.map((v) => (v === null ? 'NULL' : `'${String(v).replaceAll("'", "''")}'`))
    const { rows } = await client.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN EXECUTE claim(${args.join(', ')})`,
    )
    return rows.map((row) => row['QUERY PLAN']).join('\n')
  } finally {
    await client.end()
  }
}
