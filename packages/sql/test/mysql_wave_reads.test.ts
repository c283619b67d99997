/**
 * A save wave's locking read on MySQL/MariaDB costs what the wave saves, not the length of the
 * runs' histories: the checkpoints its saves target are found by their primary key
 * (shared/checkpoints_at.ts). Before, the read joined the checkpoints to their runs on
 * `(r.id, c.seq) IN (…)`, and MariaDB read every checkpoint of each run (a 50-run wave of
 * 800-position runs fell from 7.8k to 3.0k steps/s as they grew). Checked by running each
 * captured read again under MariaDB's ANALYZE (executed, nothing kept) and counting the
 * checkpoint rows it read. A wave of saves to new positions reads no checkpoint at all (the
 * INSERT goes first; only one that meets a stored checkpoint is followed by the read).
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { OpResult, StateStore, StoreOp } from '@cairn/core/contracts'
import { poolOfStore } from '../src/mysql/debug_access.ts'
import { statementText } from '../src/mysql/statement_text.ts'
import type { SqlPool, SqlSession, SqlStatement } from '../src/shared/driver.ts'
import { adminQuery, mysqlTest, storeInFreshDatabase } from './helpers/mysql.ts'

const T0 = 2_200_000_000_000
const RUNS = 6
const HISTORY = 150

const create = (id: string): StoreOp => ({
  type: 'createRun',
  run: { id, workflow: 'w', version: 'v1', input: '{}', createdAt: T0 },
  claim: { owner: 'engine-a', leaseMs: 30_000 },
})

const save = (runId: string, seq: number): StoreOp => ({
  type: 'saveCheckpoint',
  fence: { runId, epoch: 1 },
  checkpoint: {
    runId,
    seq,
    name: `step-${seq}`,
    kind: 'local',
    status: 'completed',
    attempts: 1,
    order: seq + 1,
    input: null,
    output: JSON.stringify({ seq }),
    error: null,
    wakeAt: null,
    startedAt: T0,
    updatedAt: T0,
    worker: null,
  },
})

/** The statements sent inside the store's transactions from now on. */
function captureStatements(store: object): SqlStatement[] {
  const pool = poolOfStore.get(store) as SqlPool
  const sent: SqlStatement[] = []
  const transaction = pool.transaction.bind(pool)
  pool.transaction = (body) =>
    transaction((session) => {
      const watched: SqlSession = {
        query: (statement) => {
          sent.push(statement)
          return session.query(statement)
        },
      }
      return body(watched)
    })
  return sent
}

/** Checkpoint rows the statement reads, from MariaDB's ANALYZE of it (it runs, in autocommit). */
async function checkpointRowsRead(sql: string): Promise<number> {
  const [[plan]] = (await adminQuery(`ANALYZE FORMAT=JSON ${sql}`)) as [[string]]
  let read = 0
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit)
    if (node === null || typeof node !== 'object') return
    const table = node as Record<string, unknown>
    if (table.table_name === 'c') read += Number(table.r_rows ?? 0) * Number(table.r_loops ?? 1)
    Object.values(table).forEach(visit)
  }
  visit(JSON.parse(plan))
  return read
}

/**
 * Why this file cannot run on the server it was given, or null: ANALYZE FORMAT=JSON is
 * MariaDB's (an unreachable server is mysqlTest's to report).
 */
async function notMariaDb(): Promise<string | null> {
  try {
    const [[version]] = (await adminQuery('SELECT VERSION()')) as [[string]]
    return /mariadb/i.test(version)
      ? null
      : `ANALYZE FORMAT=JSON is MariaDB's; the server is ${version}`
  } catch {
    return null
  }
}

const unsupported = await notMariaDb()
const mariaDbTest =
  unsupported === null
    ? mysqlTest
    : (name: string, body: () => Promise<void>) => void test(name, { skip: unsupported }, body)

function statuses(results: readonly OpResult[]): string[] {
  return [...new Set(results.map((r) => r.status))]
}

mariaDbTest(
  'a save wave reads only the checkpoints at its places, however long its runs are',
  async () => {
    const { store, cleanup } = storeInFreshDatabase()
    try {
      await (store as StateStore).open()
      const ids = Array.from({ length: RUNS }, (_, i) => `long-${i}`)
      await store.applyBatch(ids.map(create), T0)
      for (let seq = 0; seq < HISTORY; seq += 25) {
        const ops = ids.flatMap((id) => Array.from({ length: 25 }, (_, k) => save(id, seq + k)))
        assert.deepEqual(statuses(await store.applyBatch(ops, T0)), ['applied'])
      }
      const sent = captureStatements(store)
      const checkpointReads = () =>
        sent.filter(({ text }) => /^\s*SELECT\b[^]*\bcairn_checkpoints\s+c\s/.test(text))
      // New positions (nothing stored there): the saves are written without reading.
      assert.deepEqual(
        statuses(
          await store.applyBatch(
            ids.map((id) => save(id, HISTORY)),
            T0,
          ),
        ),
        ['applied'],
      )
      assert.equal(checkpointReads().length, 0, 'no checkpoint read for new positions')
      // Positions already recorded: the INSERT meets them, then one read finds the conflicts.
      assert.deepEqual(
        statuses(
          await store.applyBatch(
            ids.map((id) => save(id, 7)),
            T0,
          ),
        ),
        ['conflict'],
      )
      assert.equal(checkpointReads().length, 1, 'one checkpoint read for recorded positions')
      // New and recorded positions in one wave: the read after the refused INSERT finds both
      // kinds of place by the key.
      assert.deepEqual(
        statuses(
          await store.applyBatch(
            ids.flatMap((id) => [save(id, 8), save(id, HISTORY + 1)]),
            T0,
          ),
        ),
        ['conflict', 'applied'],
      )
      const [recordedRead, mixedRead] = checkpointReads()
      assert.equal(checkpointReads().length, 2, 'one checkpoint read per wave that met a record')
      const recorded = await checkpointRowsRead(statementText(recordedRead as SqlStatement))
      const mixed = await checkpointRowsRead(statementText(mixedRead as SqlStatement))
      // At most one index entry per place (a range that finds nothing still looks at the entry
      // after it); the whole histories are RUNS × HISTORY rows.
      assert.ok(recorded <= RUNS, `recorded positions: ${recorded} rows read for ${RUNS} places`)
      assert.ok(mixed <= 2 * RUNS, `mixed positions: ${mixed} rows read for ${2 * RUNS} places`)
    } finally {
      await (store as StateStore).close()
      await cleanup()
    }
  },
)
