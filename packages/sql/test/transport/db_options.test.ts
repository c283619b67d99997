/**
 * The db transport refuses bad options when it is created, with E_INVALID_ARGUMENT naming the
 * option: never a connection to somewhere else, never a default silently in force.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { mysqlTransport, postgresTransport, sqliteTransport } from '../../src/transport/index.ts'

const PG = 'postgres://postgres@127.0.0.1:5432/postgres'

function refuses(make: () => unknown, pattern: RegExp): void {
  assert.throws(make, (error: { code?: string; message?: string }) => {
    assert.equal(error.code, 'E_INVALID_ARGUMENT')
    assert.match(error.message ?? '', pattern)
    return true
  })
}

void test('db transport: unknown, misspelt and prototype keys are refused by name', () => {
  refuses(
    () => postgresTransport({ connectionString: PG, pollInterval: 5 } as never),
    /"pollInterval"/,
  )
  refuses(() => sqliteTransport({ path: 'x.db', prefix: 'a' } as never), /"prefix"/)
  refuses(
    () => mysqlTransport(JSON.parse('{"uri":"mysql://root@127.0.0.1/x","__proto__":{"max":1}}')),
    /"__proto__"/,
  )
})

void test('db transport: numbers must be integers in range (NaN, 1.5, strings, 0 refused)', () => {
  for (const bad of [Number.NaN, 1.5, '100', 0, -1, Infinity, 2 ** 31])
    refuses(
      () => postgresTransport({ connectionString: PG, pollIntervalMs: bad as number }),
      /pollIntervalMs must be an integer/,
    )
  refuses(() => sqliteTransport({ path: 'x.db', reportBatchSize: 100_000 }), /reportBatchSize/)
  refuses(() => mysqlTransport({ uri: 'mysql://x', max: 0 }), /max must be an integer/)
})

void test('db transport: exactly one way to reach the database; names that fit', () => {
  refuses(() => postgresTransport({} as never), /exactly one of connectionString, connection, pool/)
  refuses(
    () => postgresTransport({ connectionString: PG, pool: {} as never }),
    /exactly one of connectionString, connection, pool/,
  )
  refuses(() => postgresTransport({ connectionString: '' }), /connectionString must be/)
  refuses(() => postgresTransport({ connectionString: PG, schema: 'x'.repeat(64) }), /schema/)
  refuses(() => mysqlTransport({ uri: 'mysql://x', database: 'a\u0000b' }), /database/)
  refuses(() => sqliteTransport({ path: '' }), /path must be/)
  refuses(() => sqliteTransport(undefined as never), /options must be a plain object/)
  refuses(() => sqliteTransport({ path: 'x.db', onError: 'log' as never }), /onError/)
})

void test('db transport: a half used before open() or after close() says so', async () => {
  const half = sqliteTransport({ path: ':memory:' }).engine()
  await assert.rejects(half.publish([]), /open\(\) the db transport first/)
  await half.open()
  await half.close()
  await assert.rejects(half.publish([]), /the db transport is closed/)
})
