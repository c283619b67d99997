/**
 * A connection whose backend is terminated as the pool hands it out: node-postgres emits
 * 'error' after its pool dropped its own listener and before the store's checkout attached one.
 * The guard every pooled connection gets (connection_guard.ts) keeps that from crashing the
 * process, and the checkout that receives the connection releases it as broken (destroyed,
 * not reused).
 */
import assert from 'node:assert/strict'
import { EventEmitter } from 'node:events'
import { test } from 'node:test'
import { guardConnection } from '../src/postgres/connection_guard.ts'
import { PgPool, type PgClientPool } from '../src/postgres/pg_pool.ts'

class FakeClient extends EventEmitter {
  released: Array<Error | undefined> = []
  query() {
    return Promise.resolve({ rows: [[1]], rowCount: 1 } as never)
  }
  release(error?: Error) {
    this.released.push(error)
  }
}

/** A pool whose connection fails between being handed out and the caller's continuation. */
function poolFailingAtHandOut(client: FakeClient, guarded: boolean): PgClientPool {
  if (guarded) guardConnection(client) // what pool.on('connect', guardConnection) does
  return {
    connect() {
      const handedOut = Promise.resolve(client)
      // Synchronous, as when the parser reads ReadyForQuery and the FATAL error in one chunk.
      client.emit('error', new Error('terminating connection due to administrator command'))
      return handedOut
    },
    end: () => Promise.resolve(),
  }
}

void test('an error as the connection is handed out neither crashes nor returns it to the pool', async () => {
  const client = new FakeClient()
  const pool = new PgPool(poolFailingAtHandOut(client, true), false)
  await pool.query({ text: 'SELECT 1', values: [] })
  assert.equal(client.released.length, 1)
  assert.match(String(client.released[0]?.message), /terminating connection/)
})

void test('without the guard the same error would be an unhandled error event', () => {
  const client = new FakeClient()
  assert.throws(() => poolFailingAtHandOut(client, false).connect(), /terminating connection/)
})
