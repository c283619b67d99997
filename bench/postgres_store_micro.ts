/**
 * Micro benchmark of the Postgres store's hot path, in a scratch schema of CAIRN_PG_URL.
 * Prints rows/s, round trips (statements) per batch and latency per batch for:
 * - saves: applyBatch of 50 saveCheckpoint ops, 50 runs in flight writing 10 checkpoints
 *   each (one per batch), then the next 50 runs (the SQLite micro benchmark's `window`);
 * - engine: the engine's usual batch: 40 runs each saving a checkpoint, 10 of them also
 *   finishing, and 10 new runs created already claimed (60 ops);
 * - two-wave: the saves batch plus, for each run, a second save of the same seq (two waves).
 * One batch in flight at a time, like the engine's committer. With PORTABLE=1 the store runs
 * the portable writers of packages/sql/src/shared (lock, decide, write: what MySQL uses).
 * Usage: node bench/postgres_store_micro.ts [batches=500]
 */
import pg from 'pg'
import type { StateStore, StoreOp } from '@cairn/core/contracts'
import { createPostgresStore } from '@cairn/sql/postgres'
import { poolOfStore } from '../packages/sql/src/postgres/debug_access.ts'
import { PortablePostgresStore } from '../packages/sql/test/helpers/portable_postgres_store.ts'
import type { SqlPool } from '../packages/sql/src/shared/driver.ts'
import { BODY, microOps } from './micro_ops.ts'
import { PG_URL } from './postgres_service.ts'

const BATCH = 50
const batches = Number(process.argv[2] ?? 500)

interface Shape {
  name: string
  /** The ops of batch b. */
  ops(b: number): StoreOp[]
  rows(ops: StoreOp[]): number
}

const runId = (i: number) =>
  `${((i * 2_654_435_761) % 2 ** 32).toString(16).padStart(8, '0')}-run-${i}`

const { save, create } = microOps(runId)

const SHAPES: Shape[] = [
  {
    name: 'saves',
    ops: (b) =>
      Array.from({ length: BATCH }, (_, i) => save(Math.floor(b / 10) * BATCH + i, b % 10)),
    rows: (ops) => ops.length,
  },
  {
    // Runs live for 5 batches: created (claimed), 4 saves, the 4th with a finish.
    name: 'engine',
    ops: (b) => {
      const ops: StoreOp[] = []
      for (let age = 1; age <= 4; age++) {
        for (let i = 0; i < 10; i++) {
          const run = (b - age) * 10 + i
          if (run < 0) continue
          ops.push(save(run, age - 1))
          if (age === 4) {
            const fence = { runId: runId(run), epoch: 1 }
            ops.push({ type: 'finishRun', fence, status: 'completed', output: BODY, error: null })
          }
        }
      }
      for (let i = 0; i < 10; i++) ops.push(create(b * 10 + i))
      return ops
    },
    rows: (ops) => ops.length,
  },
  {
    name: 'two-wave',
    ops: (b) =>
      Array.from({ length: BATCH / 2 }, (_, i) => {
        const run = Math.floor(b / 10) * BATCH + i
        return [save(run, b % 10, 'retrying'), save(run, b % 10)]
      }).flat(),
    rows: (ops) => ops.length,
  },
]

async function measure(shape: Shape) {
  const schema = `cairn_bench_${process.pid}_${shape.name.replace('-', '_')}`
  const options = { connectionString: PG_URL, schema }
  const store: StateStore =
    process.env.PORTABLE === '1' ? new PortablePostgresStore(options) : createPostgresStore(options)
  try {
    await store.open()
    if (shape.name !== 'engine') await createRuns(store, (Math.ceil(batches / 10) + 1) * BATCH)
    const pool = poolOfStore.get(store) as SqlPool
    const before = pool.statementCount
    let rows = 0
    const latencies: number[] = []
    const cpu = process.cpuUsage()
    const started = performance.now()
    for (let b = 0; b < batches; b++) {
      const ops = shape.ops(b)
      const t = performance.now()
      const results = await store.applyBatch(ops, Date.now())
      latencies.push(performance.now() - t)
      if (results.some((r) => r.status !== 'applied'))
        throw new Error(
          `batch ${b}: ${JSON.stringify(results.find((r) => r.status !== 'applied'))}`,
        )
      rows += shape.rows(ops)
    }
    const seconds = (performance.now() - started) / 1000
    const { user, system } = process.cpuUsage(cpu)
    latencies.sort((a, b) => a - b)
    return {
      rowsPerSecond: rows / seconds,
      opsPerBatch: rows / batches,
      statementsPerBatch: (pool.statementCount - before) / batches,
      p50: latencies[Math.floor(latencies.length / 2)] ?? 0,
      p99: latencies[Math.floor(latencies.length * 0.99)] ?? 0,
      cpuMicrosPerRow: (user + system) / rows,
    }
  } finally {
    await store.close()
    const admin = new pg.Client({ connectionString: PG_URL })
    await admin.connect()
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
    await admin.end()
  }
}

async function createRuns(store: StateStore, count: number): Promise<void> {
  for (let from = 0; from < count; from += 500) {
    const ops = Array.from({ length: Math.min(500, count - from) }, (_, i) => create(from + i))
    await store.applyBatch(ops, Date.now())
  }
}

for (const shape of SHAPES) {
  const r = await measure(shape)
  console.log(
    `${shape.name.padEnd(8)}: ${String(Math.round(r.rowsPerSecond)).padStart(6)} ops/s, ` +
      `${r.opsPerBatch.toFixed(0)} ops and ${r.statementsPerBatch.toFixed(2)} statements per batch, ` +
      `batch p50 ${r.p50.toFixed(2)} ms p99 ${r.p99.toFixed(2)} ms, ${r.cpuMicrosPerRow.toFixed(1)} µs CPU per op`,
  )
}
