/** Lock contention, a full disk and a closed store: each is a clean E_STORE_FAILURE, nothing applied. */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { DatabaseSync } from 'node:sqlite'
import type { StoreOp } from '@cairn/core/contracts'
import { createSqliteStore, type SqliteStore } from '@cairn/sql/sqlite'
import { connectionOfStore } from '../src/sqlite/debug_access.ts'
import { makeTempDir, type TempDir } from './helpers/temp_dir.ts'

const BOUND_MS = 400

function createOp(id: string, input = '{}'): StoreOp {
  return { type: 'createRun', run: { id, workflow: 'w', version: 'v1', input, createdAt: 1_000 } }
}

async function withStore(body: (store: SqliteStore, dir: TempDir) => Promise<void>): Promise<void> {
  const dir = await makeTempDir()
  const store = createSqliteStore({ path: dir.file('store.db'), busyTimeoutMs: BOUND_MS })
  try {
    await store.open()
    await body(store, dir)
  } finally {
    await store.close()
    await dir.remove()
  }
}

/** Another connection takes the write lock now and releases it after `holdMs`. */
function holdWriteLock(path: string, holdMs: number): Promise<void> {
  const other = new DatabaseSync(path)
  other.exec('BEGIN IMMEDIATE')
  return new Promise((resolve) =>
    setTimeout(() => {
      other.exec('COMMIT')
      other.close()
      resolve()
    }, holdMs),
  )
}

function isStoreFailure(pattern: RegExp) {
  return (err: { code?: string; message: string }) => {
    assert.equal(err.code, 'E_STORE_FAILURE', err.message)
    assert.match(err.message, pattern)
    return true
  }
}

void test('a write lock held longer than busyTimeoutMs: E_STORE_FAILURE within the bound, nothing applied', async () => {
  await withStore(async (store, dir) => {
    const released = holdWriteLock(dir.file('store.db'), BOUND_MS * 3)
    const started = Date.now()
    await assert.rejects(
      store.applyBatch([createOp('run-1')], 1_000),
      isStoreFailure(/applyBatch.*locked/),
    )
    const elapsed = Date.now() - started
    assert.ok(elapsed >= BOUND_MS * 0.8 && elapsed < BOUND_MS + 300, `rejected after ${elapsed} ms`)
    await released
    assert.equal(await store.getRun('run-1'), null)
  })
})

void test('a write lock held shorter than busyTimeoutMs: the write waits and applies', async () => {
  await withStore(async (store, dir) => {
    const released = holdWriteLock(dir.file('store.db'), BOUND_MS / 4)
    const [result] = await store.applyBatch([createOp('run-1')], 1_000)
    assert.equal(result?.status, 'applied')
    await released
  })
})

void test('reads are not blocked by another connection holding the write lock (WAL)', async () => {
  await withStore(async (store, dir) => {
    await store.applyBatch([createOp('run-1')], 1_000)
    const released = holdWriteLock(dir.file('store.db'), BOUND_MS * 2)
    const started = Date.now()
    assert.equal((await store.getRun('run-1'))?.id, 'run-1')
    assert.ok(Date.now() - started < BOUND_MS / 2, 'the read waited for the writer')
    await released
  })
})

void test('a full disk (SQLITE_FULL) rejects with a clear E_STORE_FAILURE; nothing applied; the store recovers', async () => {
  await withStore(async (store) => {
    await store.applyBatch([createOp('small')], 1_000)
    const db = connectionOfStore.get(store) as DatabaseSync
    const pages = (db.prepare('PRAGMA page_count').get() as { page_count: number }).page_count
    db.exec(`PRAGMA max_page_count = ${pages + 2}`)
    const big = [createOp('a', 'x'.repeat(4_000)), createOp('b', 'y'.repeat(200_000))]
    await assert.rejects(
      store.applyBatch(big, 2_000),
      isStoreFailure(/applyBatch failed: the database or disk is full/),
    )
    assert.equal(
      await store.getRun('a'),
      null,
      'the first op of the failed batch must not be applied',
    )
    db.exec('PRAGMA max_page_count = 1073741823')
    const results = await store.applyBatch(big, 3_000)
    assert.deepEqual(
      results.map((result) => result.status),
      ['applied', 'applied'],
    )
  })
})

void test('a store not opened, or closed, rejects every call with E_STORE_FAILURE; close is idempotent', async () => {
  const dir = await makeTempDir()
  try {
    const store = createSqliteStore({ path: dir.file('closed.db') })
    await assert.rejects(store.getRun('x'), isStoreFailure(/never opened|closed/))
    await store.open()
    await store.close()
    await store.close()
    await assert.rejects(store.applyBatch([createOp('run-1')], 1), isStoreFailure(/closed/))
    await assert.rejects(store.listRuns({}), isStoreFailure(/closed/))
    await assert.rejects(
      store.claimRuns({ owner: 'o', now: 1, leaseMs: 1, limit: 1, runnable: [] }),
      isStoreFailure(/closed/),
    )
    await assert.rejects(store.open(), isStoreFailure(/closed/))
  } finally {
    await dir.remove()
  }
})

void test('close waits for a call suspended in a busy retry, which then answers cleanly', async () => {
  await withStore(async (store, dir) => {
    const released = holdWriteLock(dir.file('store.db'), BOUND_MS / 2)
    const pending = store.applyBatch([createOp('run-1')], 1_000)
    await store.close()
    assert.equal((await pending)[0]?.status, 'applied')
    await released
  })
})

void test('a file that cannot be opened rejects open() with E_STORE_FAILURE', async () => {
  const dir = await makeTempDir()
  try {
    const store = createSqliteStore({ path: dir.file('no-such-dir/store.db') })
    await assert.rejects(store.open(), isStoreFailure(/open failed/))
    await store.close()
  } finally {
    await dir.remove()
  }
})

void test('bad options are refused with E_INVALID_ARGUMENT', () => {
  for (const options of [
    { path: '' },
    { path: 'x.db', synchronous: 'off' },
    { path: 'x.db', busyTimeoutMs: -1 },
  ]) {
    assert.throws(
      () => createSqliteStore(options as never),
      (err: { code?: string }) => err.code === 'E_INVALID_ARGUMENT',
    )
  }
})
