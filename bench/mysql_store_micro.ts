/**
 * Micro benchmark of the MySQL/MariaDB store's hot path, in a scratch database of
 * CAIRN_MYSQL_URL. Prints ops/s, round trips (statements) per batch and latency per batch for
 * the shapes of bench/postgres_store_micro.ts:
 * - saves: applyBatch of 50 saveCheckpoint ops, 50 runs in flight writing 10 checkpoints each;
 * - engine: 40 runs each saving a checkpoint, 10 of them also finishing, 10 new claimed runs;
 * - two-wave: the saves batch plus, for each run, a second save of the same seq.
 * One batch in flight at a time, like the engine's committer. With WORKLOAD=1 it runs the
 * standard engine workload (bench/workload.ts) on the store instead.
 * Usage: node bench/mysql_store_micro.ts [batches=500]
 */
import mysql from 'mysql2/promise'
import type { StateStore, StoreOp } from '@cairn/core/contracts'
import { createMysqlStore } from '@cairn/sql/mysql'
import { poolOfStore } from '../packages/sql/src/mysql/debug_access.ts'
import type { SqlPool } from '../packages/sql/src/shared/driver.ts'
import { measureEngine } from './engine_row.ts'
import { MYSQL_URL } from './mysql_service.ts'
import { BODY, microOps } from './micro_ops.ts'

const BATCH = 50
const batches = Number(process.argv[2] ?? 500)

interface Shape {
  name: string
  /** The ops of batch b. */
  ops(b: number): StoreOp[]
}

/** Time-ordered like the engine's UUIDv7 run ids. */
const runId = (i: number) => `${String(i).padStart(10, '0')}-run`

const { save, create } = microOps(runId)

const SHAPES: Shape[] = [
  {
    name: 'saves',
    ops: (b) =>
      Array.from({ length: BATCH }, (_, i) => save(Math.floor(b / 10) * BATCH + i, b % 10)),
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
  },
  {
    name: 'two-wave',
    ops: (b) =>
      Array.from({ length: BATCH / 2 }, (_, i) => {
        const run = Math.floor(b / 10) * BATCH + i
        return [save(run, b % 10, 'retrying'), save(run, b % 10)]
      }).flat(),
  },
]

async function inScratchDatabase<T>(name: string, body: (store: StateStore) => Promise<T>) {
  const database = `cairn_bench_${process.pid}_${name.replace('-', '_')}`
  const store = createMysqlStore({ uri: MYSQL_URL, database })
  try {
    await store.open()
    return await body(store)
  } finally {
    await store.close()
    const admin = await mysql.createConnection({ uri: MYSQL_URL })
    await admin.query(`DROP DATABASE IF EXISTS \`${database}\``)
    await admin.end()
  }
}

async function measure(store: StateStore, shape: Shape) {
  if (shape.name !== 'engine') await createRuns(store, (Math.ceil(batches / 10) + 1) * BATCH)
  const pool = poolOfStore.get(store) as SqlPool
  const before = pool.statementCount
  let ops = 0
  const latencies: number[] = []
  const cpu = process.cpuUsage()
  const started = performance.now()
  for (let b = 0; b < batches; b++) {
    const batch = shape.ops(b)
    const t = performance.now()
    const results = await store.applyBatch(batch, Date.now())
    latencies.push(performance.now() - t)
    const refused = results.find((r) => r.status !== 'applied')
    if (refused) throw new Error(`batch ${b}: ${JSON.stringify(refused)}`)
    ops += batch.length
  }
  const seconds = (performance.now() - started) / 1000
  const { user, system } = process.cpuUsage(cpu)
  latencies.sort((a, b) => a - b)
  return {
    opsPerSecond: ops / seconds,
    opsPerBatch: ops / batches,
    statementsPerBatch: (pool.statementCount - before) / batches,
    p50: latencies[Math.floor(latencies.length / 2)] ?? 0,
    p99: latencies[Math.floor(latencies.length * 0.99)] ?? 0,
    cpuMicrosPerOp: (user + system) / ops,
  }
}

async function createRuns(store: StateStore, count: number): Promise<void> {
  for (let from = 0; from < count; from += 500) {
    const ops = Array.from({ length: Math.min(500, count - from) }, (_, i) => create(from + i))
    await store.applyBatch(ops, Date.now())
  }
}

if (process.env.WORKLOAD === '1') {
  const result = await inScratchDatabase('workload', (store) => measureEngine(store))
  console.log(JSON.stringify(result))
} else {
  for (const shape of SHAPES) {
    const r = await inScratchDatabase(shape.name, (store) => measure(store, shape))
    console.log(
      `${shape.name.padEnd(8)}: ${String(Math.round(r.opsPerSecond)).padStart(6)} ops/s, ` +
        `${r.opsPerBatch.toFixed(0)} ops and ${r.statementsPerBatch.toFixed(2)} statements per batch, ` +
        `batch p50 ${r.p50.toFixed(2)} ms p99 ${r.p99.toFixed(2)} ms, ${r.cpuMicrosPerOp.toFixed(1)} µs CPU per op`,
    )
  }
}
