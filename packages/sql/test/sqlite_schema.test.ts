/** Migrations, the committed schema dump, the revision marker and the PRAGMAs each connection sets. */
import assert from 'node:assert/strict'
import { readFile, writeFile } from 'node:fs/promises'
import { test } from 'node:test'
import { DatabaseSync } from 'node:sqlite'
import { createSqliteStore } from '@cairn/sql/sqlite'
import { connectionOfStore } from '../src/sqlite/debug_access.ts'
import { MARKER_TABLE } from '../src/sqlite/migrate.ts'
import { latestRevision, migrations } from '../src/sqlite/migrations/index.ts'
import { dumpSchema } from './helpers/sqlite_schema_dump.ts'
import { makeTempDir } from './helpers/temp_dir.ts'
import {
  OLD_REVISIONS,
  checkUpgradedRun,
  insertOldCheckpoint,
  insertOldRun,
} from './helpers/upgrade.ts'

const SCHEMA_FILE = new URL('../src/sqlite/schema.sql', import.meta.url)

void test('schema.sql is what the migrations produce (CAIRN_UPDATE_SCHEMA=1 rewrites it)', async () => {
  const store = createSqliteStore({ path: ':memory:' })
  await store.open()
  try {
    const dump = dumpSchema(connectionOfStore.get(store) as DatabaseSync)
    if (process.env.CAIRN_UPDATE_SCHEMA === '1') await writeFile(SCHEMA_FILE, dump)
    const committed = await readFile(SCHEMA_FILE, 'utf8')
    assert.equal(committed, dump, 'schema.sql is stale: rerun this test with CAIRN_UPDATE_SCHEMA=1')
  } finally {
    await store.close()
  }
})

void test('a fresh file is migrated to the latest revision; reopening keeps data and revision', async () => {
  const dir = await makeTempDir()
  try {
    const path = dir.file('reopen.db')
    for (let i = 0; i < 2; i++) {
      const store = createSqliteStore({ path })
      await store.open()
      const op = {
        type: 'createRun' as const,
        run: { id: 'run-1', workflow: 'w', version: 'v1', input: '{}', createdAt: 1_000 },
      }
      const [result] = await store.applyBatch([op], 1_000)
      assert.equal(result?.status, i === 0 ? 'applied' : 'exists')
      await store.close()
    }
    const db = new DatabaseSync(path)
    assert.deepEqual(
      { ...db.prepare('SELECT id, revision FROM cairn_schema').all()[0] },
      { id: 1, revision: latestRevision },
    )
    db.close()
  } finally {
    await dir.remove()
  }
})

for (const [revision, before] of OLD_REVISIONS) {
  void test(`a database of revision ${revision} (${before}) upgrades in place, keeping its runs`, async () => {
    const dir = await makeTempDir()
    try {
      const path = dir.file(`revision-${revision}.db`)
      const old = new DatabaseSync(path)
      for (const migration of migrations.slice(0, revision)) old.exec(migration.sql)
      old.exec(MARKER_TABLE)
      old.exec(`INSERT INTO cairn_schema (id, revision) VALUES (1, ${revision})`)
      old.exec(insertOldRun('cairn_runs'))
      old.exec(insertOldCheckpoint('cairn_runs', 'cairn_checkpoints'))
      old.close()
      const store = createSqliteStore({ path })
      await store.open()
      try {
        await checkUpgradedRun(store)
        const upgraded = dumpSchema(connectionOfStore.get(store) as DatabaseSync)
        assert.equal(
          upgraded,
          await readFile(SCHEMA_FILE, 'utf8'),
          'the same schema as a fresh file',
        )
      } finally {
        await store.close()
      }
      const db = new DatabaseSync(path)
      assert.equal(db.prepare('SELECT revision FROM cairn_schema').get()?.revision, latestRevision)
      db.close()
    } finally {
      await dir.remove()
    }
  })
}

void test('a database from a newer Cairn (higher revision) is refused with E_MIGRATION_FAILED', async () => {
  const dir = await makeTempDir()
  try {
    const path = dir.file('newer.db')
    const first = createSqliteStore({ path })
    await first.open()
    await first.close()
    const db = new DatabaseSync(path)
    db.prepare('UPDATE cairn_schema SET revision = ?').run(latestRevision + 1)
    db.close()
    const store = createSqliteStore({ path })
    await assert.rejects(store.open(), (err: { code?: string; message: string }) => {
      assert.equal(err.code, 'E_MIGRATION_FAILED')
      assert.match(err.message, /newer/)
      return true
    })
    await store.close()
  } finally {
    await dir.remove()
  }
})

for (const [synchronous, level] of [
  ['full', 2],
  ['normal', 1],
] as const) {
  void test(`PRAGMAs of a store opened with synchronous=${synchronous}`, async () => {
    const dir = await makeTempDir()
    const store = createSqliteStore({ path: dir.file('pragmas.db'), synchronous })
    try {
      await store.open()
      const db = connectionOfStore.get(store) as DatabaseSync
      const pragma = (name: string) => Object.values(db.prepare(`PRAGMA ${name}`).get() ?? {})[0]
      assert.equal(pragma('journal_mode'), 'wal')
      assert.equal(pragma('synchronous'), level)
      assert.equal(pragma('foreign_keys'), 1)
    } finally {
      await store.close()
      await dir.remove()
    }
  })
}
