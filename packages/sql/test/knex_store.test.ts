/**
 * `@cairn/sql/knex` without a server: which Knex instances and options are refused, and the
 * SQLite store on better-sqlite3 sharing the application's connection (its database, its
 * turn on the one connection, its settings) and leaving the Knex instance open.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { StoreOp } from '@cairn/core/contracts'
import { createKnexStore } from '@cairn/sql/knex'
import knex from 'knex'
import type { KnexClient } from '../src/knex/knex_client.ts'
import { KnexMysqlPool } from '../src/knex/knex_mysql_pool.ts'
import { KnexPgPool } from '../src/knex/knex_pg_pool.ts'
import { sqliteKnex } from './helpers/knex.ts'
import { makeTempDir } from './helpers/temp_dir.ts'

const T0 = 1_700_000_000_000

const create = (id: string): StoreOp => ({
  type: 'createRun',
  run: { id, workflow: 'w', version: 'v1', input: '{}', createdAt: T0 },
})

function invalidArgument(pattern: RegExp) {
  return (err: { code?: string; message: string }) => {
    assert.equal(err.code, 'E_INVALID_ARGUMENT', err.message)
    assert.match(err.message, pattern)
    return true
  }
}

void test('a Knex client other than pg, mysql2 or better-sqlite3 is refused, naming the supported ones', async () => {
  const reasons: Record<string, RegExp> = {
    sqlite3: /asynchronous only.*use better-sqlite3/,
    mysql: /use mysql2/,
    mariadb: /use mysql2/,
    mssql: /"mssql" is not supported/,
    cockroachdb: /"cockroachdb" is not supported/,
    redshift: /"pg-redshift" is not supported/,
    oracledb: /"oracledb" is not supported/,
  }
  for (const [client, reason] of Object.entries(reasons)) {
    // No connection settings: Knex loads no driver, opens nothing.
    const app = knex({ client, useNullAsDefault: true })
    assert.throws(() => createKnexStore(app), invalidArgument(reason), client)
    assert.throws(
      () => createKnexStore(app),
      invalidArgument(/supported: pg \(Postgres\), mysql2 \(MySQL\/MariaDB\) or better-sqlite3/),
    )
    await app.destroy()
  }
  for (const notKnex of [null, {}, () => undefined, { client: {} }]) {
    assert.throws(
      () => createKnexStore(notKnex as never),
      invalidArgument(/expected a Knex instance/),
    )
  }
})

void test('the store follows the client; before open() and after close() calls reject; only Postgres pushes wake-ups', async () => {
  const stores = ['pg', 'mysql2', 'better-sqlite3'].map((client) =>
    createKnexStore(knex({ client, useNullAsDefault: true })),
  )
  assert.deepEqual(
    stores.map((store) => [store.kind, typeof store.watchClaimable]),
    [
      ['postgres', 'function'],
      ['mysql', 'undefined'],
      ['sqlite', 'undefined'],
    ],
  )
  for (const store of stores) {
    await assert.rejects(store.getRun('a'), { code: 'E_STORE_FAILURE' })
    await store.close()
    await assert.rejects(store.open(), { code: 'E_STORE_FAILURE' })
  }
  await assert.rejects(
    stores[0]!.watchClaimable!(() => undefined),
    { code: 'E_STORE_FAILURE' },
  )
})

/** A Knex client lending one fake connection, recording what happens to it. */
function lendingClient() {
  const events: string[] = []
  const connection = {
    __knex__disposed: undefined as unknown,
    on: () => undefined,
    removeListener: () => undefined,
    end: () => (events.push('end'), Promise.resolve()),
    destroy: () => void events.push('destroy'),
  }
  const client: KnexClient = {
    config: {},
    acquireConnection: () => Promise.resolve(connection),
    releaseConnection: (given) => {
      events.push(given === connection ? 'released' : 'released another')
      return Promise.resolve()
    },
  }
  return { client, connection, events }
}

void test('a borrowed connection that failed is closed and marked, so Knex destroys it instead of lending it again', async () => {
  const failure = new Error('connection reset')
  for (const borrow of [
    async (client: KnexClient, broken: boolean) => {
      const checkout = await new KnexPgPool(client).connect()
      checkout.release(broken ? failure : undefined)
    },
    async (client: KnexClient, broken: boolean) => {
      const checkout = await new KnexMysqlPool(client).getConnection()
      if (broken) checkout.destroy(failure)
      else checkout.release()
    },
  ]) {
    const healthy = lendingClient()
    await borrow(healthy.client, false)
    assert.deepEqual(healthy.events, ['released'])
    assert.equal(healthy.connection.__knex__disposed, undefined)
    const broken = lendingClient()
    await borrow(broken.client, true)
    assert.match(broken.events.join(), /^(end|destroy),released$/)
    // What Knex's pool checks before lending a connection again (knex/lib/client.js).
    assert.equal(broken.connection.__knex__disposed, failure)
  }
})

void test('a transaction and invalid options or options of another dialect are refused', async () => {
  const app = sqliteKnex(':memory:')
  try {
    await app.transaction(async (trx) => {
      assert.throws(() => createKnexStore(trx), invalidArgument(/not a transaction/))
      await Promise.resolve()
    })
    const refused: [object, RegExp][] = [
      [
        { schema: 'cairn' },
        /schema applies to postgres only; this Knex instance runs better-sqlite3/,
      ],
      [{ database: 'cairn' }, /database applies to mysql only/],
      [{ path: 'x.db' }, /unknown option "path"/],
      [{ busyTimeoutMs: -1 }, /busyTimeoutMs must be an integer from 0 to/],
    ]
    for (const [options, reason] of refused) {
      assert.throws(() => createKnexStore(app, options as never), invalidArgument(reason))
    }
    const pg = knex({ client: 'pg' })
    assert.throws(() => createKnexStore(pg, { schema: '' }), invalidArgument(/schema must be/))
    await pg.destroy()
  } finally {
    await app.destroy()
  }
})

void test("the SQLite store runs on the application's connection and close() leaves Knex open", async () => {
  const app = sqliteKnex(':memory:') // one in-memory database: only its own connection sees it
  try {
    await app.schema.createTable('orders', (table) => table.string('id'))
    const store = createKnexStore(app)
    await store.open()
    await store.applyBatch([create('run-1')], T0)
    assert.deepEqual(await app('cairn_runs').pluck('id'), ['run-1'], 'the same database')
    await store.close()
    await store.close()
    await assert.rejects(store.getRun('run-1'), { code: 'E_STORE_FAILURE' })
    await app('orders').insert({ id: 'o-1' })
    assert.deepEqual(await app('orders').pluck('id'), ['o-1'], 'the application goes on')

    const again = createKnexStore(app)
    await again.open()
    assert.equal((await again.getRun('run-1'))?.id, 'run-1', 'the connection was not closed')
    await again.close()
  } finally {
    await app.destroy()
  }
})

void test("a store call waits for the application's transaction on the one connection, then runs", async () => {
  const app = sqliteKnex(':memory:')
  const store = createKnexStore(app)
  try {
    await store.open()
    let applied = false
    let writing: Promise<unknown> = Promise.resolve()
    await app.transaction(async (trx) => {
      await trx.raw('SELECT 1')
      writing = store.applyBatch([create('run-1')], T0).then(() => (applied = true))
      await new Promise((resolve) => setTimeout(resolve, 50))
      assert.equal(applied, false, 'no turn on the connection while the transaction holds it')
    })
    await writing
    assert.equal((await store.getRun('run-1'))?.id, 'run-1')
  } finally {
    await store.close()
    await app.destroy()
  }
})

void test("the application's connection settings are left as they were; a new file is switched to WAL", async () => {
  const dir = await makeTempDir()
  const app = sqliteKnex(dir.file('app.db'))
  const pragma = async (name: string, column = name) =>
    ((await app.raw(`PRAGMA ${name}`)) as Record<string, unknown>[])[0]?.[column]
  const settings = () =>
    Promise.all([pragma('busy_timeout', 'timeout'), pragma('synchronous'), pragma('foreign_keys')])
  try {
    assert.equal(await pragma('journal_mode'), 'delete')
    const store = createKnexStore(app)
    await store.open()
    await store.close()
    // better-sqlite3 runs a WAL database at synchronous NORMAL unless told otherwise (docs/knex.md).
    assert.equal(await pragma('journal_mode'), 'wal')
    const before = await settings()
    assert.deepEqual(before, [5000, 1, 1], "better-sqlite3's defaults")
    await app.raw('PRAGMA synchronous = FULL')
    await app.raw('PRAGMA busy_timeout = 1234')
    const chosen = await settings()
    const again = createKnexStore(app)
    await again.open()
    await again.applyBatch([create('run-1')], T0)
    await again.close()
    assert.deepEqual(await settings(), chosen)
  } finally {
    await app.destroy()
    await dir.remove()
  }
})
