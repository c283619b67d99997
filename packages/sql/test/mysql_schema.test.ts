/**
 * MySQL/MariaDB migrations: the committed schema dump, the revision marker, what booting
 * costs, eight processes booting at once against an empty server, the migration lock,
 * migrations cut short by a crash, upgrades from older revisions, and the store's options.
 */
import assert from 'node:assert/strict'
import { readFile, writeFile } from 'node:fs/promises'
import mysql from 'mysql2/promise'
import { createMysqlStore } from '@cairn/sql/mysql'
import { poolOfStore } from '../src/mysql/debug_access.ts'
import { migrationLockName } from '../src/mysql/dialect.ts'
import { initial } from '../src/mysql/migrations/001_initial.ts'
import { inbox } from '../src/mysql/migrations/002_inbox.ts'
import { children } from '../src/mysql/migrations/003_children.ts'
import { latestRevision, migrations } from '../src/mysql/migrations/index.ts'
import { dumpSchema } from './helpers/mysql_schema_dump.ts'
import { mysqlSetup } from '../src/mysql/store_setup.ts'
import type { SqlPool } from '../src/shared/driver.ts'
import type { Migration } from '../src/shared/migration.ts'
import { SqlStore } from '../src/shared/sql_store.ts'
import { qualifiedTables } from '../src/shared/tables.ts'
import { mysqlDialect } from '../src/mysql/dialect.ts'
import { startChild } from './helpers/child_process.ts'
import {
  MYSQL_URL,
  adminQuery,
  dropDatabase,
  mysqlTest,
  randomDatabase,
  storeInFreshDatabase,
} from './helpers/mysql.ts'
import {
  OLD_REVISIONS,
  checkUpgradedRun,
  insertOldCheckpoint,
  insertOldRun,
} from './helpers/upgrade.ts'

const SCHEMA_FILE = new URL('../src/mysql/schema.sql', import.meta.url)
const BOOTERS = 8

const createRun = (id: string) => ({
  type: 'createRun' as const,
  run: { id, workflow: 'w', version: 'v1', input: '{}', createdAt: 1_000 },
})

function poolOf(store: object): SqlPool {
  return poolOfStore.get(store) as SqlPool
}

mysqlTest(
  'schema.sql is what the migrations produce (CAIRN_UPDATE_SCHEMA=1 rewrites it)',
  async () => {
    const { store, database, cleanup } = storeInFreshDatabase()
    try {
      await store.open()
      const dump = await dumpSchema(poolOf(store), database)
      if (process.env.CAIRN_UPDATE_SCHEMA === '1') await writeFile(SCHEMA_FILE, dump)
      const committed = await readFile(SCHEMA_FILE, 'utf8')
      assert.equal(
        committed,
        dump,
        'schema.sql is stale: rerun this test with CAIRN_UPDATE_SCHEMA=1 (it is the MariaDB 10.11 rendering)',
      )
    } finally {
      await store.close()
      await cleanup()
    }
  },
)

mysqlTest(
  'a missing database is created and migrated; reopening keeps data and revision',
  async () => {
    const database = randomDatabase()
    try {
      for (let i = 0; i < 2; i++) {
        const store = createMysqlStore({ uri: MYSQL_URL, database })
        await store.open()
        const [result] = await store.applyBatch([createRun('run-1')], 1_000)
        assert.equal(result?.status, i === 0 ? 'applied' : 'exists')
        await store.close()
      }
      assert.deepEqual(await adminQuery(`SELECT id, revision FROM \`${database}\`.cairn_schema`), [
        [1, latestRevision],
      ])
      const [[charset, collation]] = (await adminQuery(
        'SELECT DEFAULT_CHARACTER_SET_NAME, DEFAULT_COLLATION_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?',
        [database],
      )) as [[string, string]]
      assert.deepEqual([charset, collation], ['utf8mb4', 'utf8mb4_bin'])
    } finally {
      await dropDatabase(database)
    }
  },
)

mysqlTest(
  'booting against a current schema costs at most two statements (session settings, the revision read)',
  async () => {
    const first = storeInFreshDatabase()
    try {
      await first.store.open()
      await first.store.close()
      const store = createMysqlStore({ uri: MYSQL_URL, database: first.database })
      await store.open()
      const statements = poolOf(store).statementCount
      await store.close()
      assert.ok(statements <= 2, `open() on a current schema ran ${statements} statements`)
    } finally {
      await first.cleanup()
    }
  },
)

mysqlTest(
  'a database from a newer Cairn (higher revision) is refused with E_MIGRATION_FAILED',
  async () => {
    const { store, database, cleanup } = storeInFreshDatabase()
    try {
      await store.open()
      await store.close()
      await adminQuery(`UPDATE \`${database}\`.cairn_schema SET revision = ?`, [latestRevision + 1])
      const newer = createMysqlStore({ uri: MYSQL_URL, database })
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

mysqlTest(`${BOOTERS} processes booting at once against an empty server all succeed`, async () => {
  const database = randomDatabase()
  try {
    const children = Array.from({ length: BOOTERS }, () =>
      startChild('../helpers/mysql_open_child.ts', [MYSQL_URL, database]),
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
    await dropDatabase(database)
  }
})

mysqlTest('migrating waits for the migration lock of its database (GET_LOCK)', async () => {
  const database = randomDatabase()
  const admin = await mysql.createConnection({ uri: MYSQL_URL })
  const store = createMysqlStore({ uri: MYSQL_URL, database })
  try {
    await admin.query('SELECT GET_LOCK(?, 10)', [migrationLockName(database)])
    let opened = false
    const opening = store.open().then(() => (opened = true))
    await new Promise((resolve) => setTimeout(resolve, 300))
    assert.equal(opened, false, 'open() went ahead while another migrator held the lock')
    await admin.query('SELECT RELEASE_LOCK(?)', [migrationLockName(database)])
    await opening
    assert.equal(opened, true)
    const [[holder]] = (await adminQuery('SELECT IS_USED_LOCK(?)', [
      migrationLockName(database),
    ])) as [[unknown]]
    assert.equal(holder, null, 'the migrator released its lock')
  } finally {
    await store.close()
    await admin.end()
    await dropDatabase(database)
  }
})

mysqlTest(
  'a migration cut short (DDL commits statement by statement) completes on the next open',
  async () => {
    const database = randomDatabase()
    try {
      // A crash after the first CREATE TABLE of migration 1: the table exists, the marker does not.
      await adminQuery(`CREATE DATABASE \`${database}\``)
      const [runsTable] = initial.statements(qualifiedTables(mysqlDialect, database))
      await adminQuery(runsTable as string)
      const store = createMysqlStore({ uri: MYSQL_URL, database })
      await store.open()
      assert.deepEqual(await store.applyBatch([createRun('run-1')], 1_000), [
        { status: 'applied', epoch: 0 },
      ])
      await store.close()
      assert.deepEqual(await adminQuery(`SELECT revision FROM \`${database}\`.cairn_schema`), [
        [latestRevision],
      ])
    } finally {
      await dropDatabase(database)
    }
  },
)

/** A database as an older release left it (at `revision`), holding one run. */
async function oldDatabase(database: string, revision: number): Promise<void> {
  const old = new SqlStore({
    ...mysqlSetup({ uri: MYSQL_URL, database }),
    migrations: migrations.slice(0, revision),
  })
  await old.open()
  await old.close()
  await adminQuery(insertOldRun(`\`${database}\`.cairn_runs`))
  await adminQuery(
    insertOldCheckpoint(`\`${database}\`.cairn_runs`, `\`${database}\`.cairn_checkpoints`),
  )
}

/** Opens a current store on `database`: upgraded in place, the same schema as a fresh one. */
async function checkUpgrade(database: string): Promise<void> {
  const store = createMysqlStore({ uri: MYSQL_URL, database })
  await store.open()
  try {
    await checkUpgradedRun(store)
    const upgraded = await dumpSchema(poolOf(store), database)
    assert.equal(upgraded, await readFile(SCHEMA_FILE, 'utf8'), 'the same schema as a fresh one')
  } finally {
    await store.close()
  }
  assert.deepEqual(await adminQuery(`SELECT revision FROM \`${database}\`.cairn_schema`), [
    [latestRevision],
  ])
}

for (const [revision, before] of OLD_REVISIONS) {
  mysqlTest(
    `a database of revision ${revision} (${before}) upgrades in place, keeping its runs`,
    async () => {
      const database = randomDatabase()
      try {
        await oldDatabase(database, revision)
        await checkUpgrade(database)
      } finally {
        await dropDatabase(database)
      }
    },
  )
}

/**
 * A migration's statements up to `cut` run on one session, as a crash after them (before the
 * rest and the marker) left the database: migration 2 after its column (a prepared statement:
 * four statements), migration 3 after its first column, and after everything but the marker.
 */
const CUTS: ReadonlyArray<[migration: Migration, cut: number, what: string]> = [
  [inbox, 4, 'its ALTER committed'],
  [children, 4, 'its first ALTER committed'],
  [children, 12, 'all its DDL committed'],
]

for (const [migration, cut, what] of CUTS) {
  mysqlTest(
    `migration ${migration.revision} cut short (${what}, no marker) completes on the next open`,
    async () => {
      const database = randomDatabase()
      try {
        await oldDatabase(database, migration.revision - 1)
        const session = await mysql.createConnection({ uri: MYSQL_URL })
        try {
          const statements = migration.statements(qualifiedTables(mysqlDialect, database))
          for (const statement of statements.slice(0, cut)) await session.query(statement)
        } finally {
          await session.end()
        }
        await checkUpgrade(database)
      } finally {
        await dropDatabase(database)
      }
    },
  )
}

mysqlTest('the store leaves a pool it was given open, and refuses bad options', async () => {
  const pool = mysql.createPool({ uri: MYSQL_URL, connectionLimit: 2 })
  const { store, cleanup } = storeInFreshDatabase({ pool })
  try {
    await store.open()
    await store.close()
    const [rows] = await pool.query({ sql: 'SELECT 1', rowsAsArray: true })
    assert.deepEqual(rows, [[1]])
  } finally {
    await pool.end()
    await cleanup()
  }
  for (const options of [
    {},
    { uri: MYSQL_URL, pool },
    { uri: MYSQL_URL, connectionString: MYSQL_URL },
    { uri: 'mysql://root@127.0.0.1:3306/' },
    { uri: MYSQL_URL, database: '' },
    { uri: MYSQL_URL, database: 'x'.repeat(65) },
    { uri: MYSQL_URL, database: 'trailing ' },
    { uri: MYSQL_URL, max: 0 },
    { uri: 'not a url' },
  ]) {
    assert.throws(
      () => createMysqlStore(options),
      { code: 'E_INVALID_ARGUMENT' },
      Object.keys(options).join(),
    )
  }
  // The database named in the uri is the default.
  const named = createMysqlStore({ uri: MYSQL_URL })
  await named.close()
})
