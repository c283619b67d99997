/**
 * Postgres migrations: the committed schema dump, the revision marker, what booting costs,
 * eight processes booting at once against an empty schema, and integers beyond 2^53.
 */
import assert from 'node:assert/strict'
import { readFile, writeFile } from 'node:fs/promises'
import { createPostgresStore } from '@cairn/sql/postgres'
import { poolOfStore } from '../src/postgres/debug_access.ts'
import { postgresDialect } from '../src/postgres/dialect.ts'
import { latestRevision, migrations } from '../src/postgres/migrations/index.ts'
import { dumpSchema } from './helpers/postgres_schema_dump.ts'
import { postgresSetup } from '../src/postgres/store_setup.ts'
import type { SqlPool } from '../src/shared/driver.ts'
import { SqlStore } from '../src/shared/sql_store.ts'
import { startChild } from './helpers/child_process.ts'
import {
  PG_URL,
  adminQuery,
  dropSchema,
  pgTest,
  randomSchema,
  storeInFreshSchema,
} from './helpers/postgres.ts'
import {
  OLD_REVISIONS,
  checkUpgradedRun,
  insertOldCheckpoint,
  insertOldRun,
} from './helpers/upgrade.ts'

const SCHEMA_FILE = new URL('../src/postgres/schema.sql', import.meta.url)
const BOOTERS = 8

const createRun = (id: string) => ({
  type: 'createRun' as const,
  run: { id, workflow: 'w', version: 'v1', input: '{}', createdAt: 1_000 },
})

function poolOf(store: object): SqlPool {
  return poolOfStore.get(store) as SqlPool
}

pgTest(
  'schema.sql is what the migrations produce (CAIRN_UPDATE_SCHEMA=1 rewrites it)',
  async () => {
    const { store, schema, cleanup } = storeInFreshSchema()
    try {
      await store.open()
      const dump = await poolOf(store).transaction((session) => dumpSchema(session, schema))
      if (process.env.CAIRN_UPDATE_SCHEMA === '1') await writeFile(SCHEMA_FILE, dump)
      const committed = await readFile(SCHEMA_FILE, 'utf8')
      assert.equal(
        committed,
        dump,
        'schema.sql is stale: rerun this test with CAIRN_UPDATE_SCHEMA=1',
      )
    } finally {
      await store.close()
      await cleanup()
    }
  },
)

pgTest('a missing schema is created and migrated; reopening keeps data and revision', async () => {
  const schema = randomSchema()
  try {
    for (let i = 0; i < 2; i++) {
      const store = createPostgresStore({ connectionString: PG_URL, schema })
      await store.open()
      const [result] = await store.applyBatch([createRun('run-1')], 1_000)
      assert.equal(result?.status, i === 0 ? 'applied' : 'exists')
      await store.close()
    }
    assert.deepEqual(await adminQuery(`SELECT id, revision FROM "${schema}".cairn_schema`), [
      [1, latestRevision],
    ])
  } finally {
    await dropSchema(schema)
  }
})

for (const [revision, before] of OLD_REVISIONS) {
  pgTest(
    `a schema of revision ${revision} (${before}) upgrades in place, keeping its runs`,
    async () => {
      const schema = randomSchema()
      try {
        const { parts } = postgresSetup({ connectionString: PG_URL, schema })
        const old = new SqlStore({ ...parts, migrations: migrations.slice(0, revision) })
        await old.open()
        await old.close()
        await adminQuery(insertOldRun(`"${schema}".cairn_runs`))
        await adminQuery(
          insertOldCheckpoint(`"${schema}".cairn_runs`, `"${schema}".cairn_checkpoints`),
        )
        const store = createPostgresStore({ connectionString: PG_URL, schema })
        await store.open()
        try {
          await checkUpgradedRun(store)
          const upgraded = await poolOf(store).transaction((session) => dumpSchema(session, schema))
          assert.equal(
            upgraded,
            await readFile(SCHEMA_FILE, 'utf8'),
            'the same schema as a fresh one',
          )
        } finally {
          await store.close()
        }
        assert.deepEqual(await adminQuery(`SELECT revision FROM "${schema}".cairn_schema`), [
          [latestRevision],
        ])
      } finally {
        await dropSchema(schema)
      }
    },
  )
}

pgTest('booting against a current schema costs one statement (the revision read)', async () => {
  const first = storeInFreshSchema()
  try {
    await first.store.open()
    await first.store.close()
    const store = createPostgresStore({ connectionString: PG_URL, schema: first.schema })
    await store.open()
    const statements = poolOf(store).statementCount
    await store.close()
    assert.ok(statements <= 2, `open() on a current schema ran ${statements} statements`)
    assert.equal(statements, 1)
  } finally {
    await first.cleanup()
  }
})

pgTest(
  'a schema from a newer Cairn (higher revision) is refused with E_MIGRATION_FAILED',
  async () => {
    const { store, schema, cleanup } = storeInFreshSchema()
    try {
      await store.open()
      await store.close()
      await adminQuery(`UPDATE "${schema}".cairn_schema SET revision = $1`, [latestRevision + 1])
      const newer = createPostgresStore({ connectionString: PG_URL, schema })
      await assert.rejects(newer.open(), (err: { code?: string; message: string }) => {
        assert.equal(err.code, 'E_MIGRATION_FAILED')
        assert.match(err.message, /newer/)
        return true
      })
      await newer.close()
    } finally {
      await cleanup()
    }
  },
)

pgTest(`${BOOTERS} processes booting at once against an empty schema all succeed`, async () => {
  const schema = randomSchema()
  try {
    const children = Array.from({ length: BOOTERS }, () =>
      startChild('../helpers/postgres_open_child.ts', [PG_URL, schema]),
    )
    await Promise.all(children.map((child) => child.waitForLine((line) => line === 'ready')))
    for (const child of children) child.process.stdin?.write('go\n')
    const exits = await Promise.all(children.map((child) => child.exited))
    children.forEach((child, i) => {
      assert.deepEqual(exits[i], { code: 0, signal: null }, `child ${i} failed: ${child.stderr()}`)
      assert.ok(
        child.lines.includes(`opened revision=${latestRevision}`),
        `child ${i} output: ${child.lines.join(' | ')}`,
      )
    })
  } finally {
    await dropSchema(schema)
  }
})

pgTest('migrating waits for the advisory lock of its schema', async () => {
  const schema = randomSchema()
  const pg = (await import('pg')).default
  const admin = new pg.Client({ connectionString: PG_URL })
  await admin.connect()
  const store = createPostgresStore({ connectionString: PG_URL, schema })
  try {
    const [lockClass, name] = postgresDialect.migrationLock(schema).acquire.values
    await admin.query('SELECT pg_advisory_lock($1, hashtext($2))', [lockClass, name])
    let opened = false
    const opening = store.open().then(() => (opened = true))
    await new Promise((resolve) => setTimeout(resolve, 300))
    assert.equal(opened, false, 'open() went ahead while another migrator held the lock')
    await admin.query('SELECT pg_advisory_unlock($1, hashtext($2))', [lockClass, name])
    await opening
    assert.equal(opened, true)
  } finally {
    await store.close()
    await admin.end()
    await dropSchema(schema)
  }
})

pgTest(
  'an integer beyond 2^53 in the database is a loud failure, never a rounded number',
  async () => {
    const { store, schema, cleanup } = storeInFreshSchema()
    try {
      await store.open()
      await store.applyBatch([createRun('run-1')], 1_000)
      await adminQuery(`UPDATE "${schema}".cairn_runs SET available_at = 9007199254740993`)
      await assert.rejects(store.getRun('run-1'), (err: { code?: string; message: string }) => {
        assert.equal(err.code, 'E_STORE_FAILURE')
        assert.match(err.message, /9007199254740993/)
        return true
      })
    } finally {
      await store.close()
      await cleanup()
    }
  },
)

pgTest('the store leaves a pool it was given open, and refuses bad options', async () => {
  const pg = (await import('pg')).default
  const pool = new pg.Pool({ connectionString: PG_URL, max: 2 })
  const { store, cleanup } = storeInFreshSchema({ pool })
  try {
    await store.open()
    await store.close()
    assert.deepEqual((await pool.query({ text: 'SELECT 1', rowMode: 'array' })).rows, [[1]])
  } finally {
    await pool.end()
    await cleanup()
  }
  for (const options of [
    {},
    { connectionString: PG_URL, pool },
    { connectionString: PG_URL, schema: '' },
  ]) {
    assert.throws(() => createPostgresStore(options), { code: 'E_INVALID_ARGUMENT' })
  }
})

pgTest(
  'statementTimeoutMs bounds a statement waiting on a lock (E_STORE_FAILURE, 57014)',
  async () => {
    const { store, schema, cleanup } = storeInFreshSchema({ statementTimeoutMs: 200 })
    const pg = (await import('pg')).default
    const admin = new pg.Client({ connectionString: PG_URL })
    try {
      await store.open()
      await store.applyBatch([createRun('run-1')], 1_000)
      await admin.connect()
      await admin.query('BEGIN')
      await admin.query(`SELECT 1 FROM "${schema}".cairn_runs FOR UPDATE`)
      const cancel = { type: 'cancelRun' as const, runId: 'run-1', error: '"x"' }
      await assert.rejects(
        store.applyBatch([cancel], 2_000),
        (err: { code?: string; details?: Record<string, unknown> }) => {
          assert.equal(err.code, 'E_STORE_FAILURE')
          assert.equal(err.details?.sqlState, '57014')
          assert.equal(err.details?.outcome, 'not_applied')
          return true
        },
      )
    } finally {
      await admin.query('ROLLBACK').catch(() => undefined)
      await admin.end()
      await store.close()
      await cleanup()
    }
  },
)
