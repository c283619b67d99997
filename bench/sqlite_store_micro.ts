/**
 * Micro benchmark of the SQLite store's hot path: applyBatch of 50 saveCheckpoint ops, with
 * synchronous FULL and NORMAL. Prints rows/s and CPU µs per row. Two shapes:
 * - window: like the engine workload, 50 runs in flight, each writes 10 checkpoints (one per
 *   batch) and then the next 50 runs take over;
 * - spread: 200 runs round-robin, every run's history growing for the whole run (harder:
 *   every batch writes at 50 distant places of the checkpoint index).
 * Usage: node bench/sqlite_store_micro.ts [batches=1000]
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { StoreOp } from '@cairn/core/contracts'
import { createSqliteStore, type SqliteStore } from '@cairn/sql/sqlite'

const BATCH = 50
const batches = Number(process.argv[2] ?? 1000)

interface Shape {
  name: string
  runCount: number
  /** The run and seq of the i-th op of batch b. */
  target(b: number, i: number): { run: number; seq: number }
}

const SHAPES: Shape[] = [
  {
    name: 'window',
    runCount: Math.ceil(batches / 10) * BATCH,
    target: (b, i) => ({ run: Math.floor(b / 10) * BATCH + i, seq: b % 10 }),
  },
  {
    name: 'spread',
    runCount: 200,
    target: (b, i) => ({ run: (b * BATCH + i) % 200, seq: Math.floor((b * BATCH + i) / 200) }),
  },
]

async function measure(shape: Shape, synchronous: 'full' | 'normal') {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-sqlite-bench-'))
  const store = createSqliteStore({ path: join(dir, 'bench.db'), synchronous })
  try {
    await store.open()
    await createRuns(store, shape.runCount)
    const started = process.hrtime.bigint()
    const cpu = process.cpuUsage()
    for (let b = 0; b < batches; b++) await store.applyBatch(batchOps(shape, b), Date.now())
    const seconds = Number(process.hrtime.bigint() - started) / 1e9
    const { user, system } = process.cpuUsage(cpu)
    const rows = batches * BATCH
    return { rowsPerSecond: rows / seconds, cpuMicrosPerRow: (user + system) / rows }
  } finally {
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

async function createRuns(store: SqliteStore, count: number): Promise<void> {
  const ops: StoreOp[] = Array.from({ length: count }, (_, i) => ({
    type: 'createRun',
    run: { id: runId(i), workflow: 'bench', version: 'v1', input: '{}', createdAt: Date.now() },
    claim: { owner: 'bench', leaseMs: 3_600_000 },
  }))
  await store.applyBatch(ops, Date.now())
}

/** Random-looking ids, like the UUIDs callers often use. */
function runId(i: number): string {
  return `${((i * 2_654_435_761) % 2 ** 32).toString(16).padStart(8, '0')}-run-${i}`
}

function batchOps(shape: Shape, b: number): StoreOp[] {
  return Array.from({ length: BATCH }, (_, i) => {
    const { run, seq } = shape.target(b, i)
    const now = Date.now()
    return {
      type: 'saveCheckpoint',
      fence: { runId: runId(run), epoch: 1 },
      checkpoint: {
        runId: runId(run),
        seq,
        name: `step-${seq}`,
        kind: 'local',
        status: 'completed',
        attempts: 1,
        order: seq + 1,
        input: null,
        output: '{"i":1,"ok":true,"v":1}',
        error: null,
        wakeAt: null,
        startedAt: now,
        updatedAt: now,
        worker: null,
      },
    }
  })
}

for (const shape of SHAPES) {
  for (const synchronous of ['full', 'normal'] as const) {
    const { rowsPerSecond, cpuMicrosPerRow } = await measure(shape, synchronous)
    console.log(
      `${shape.name.padEnd(6)} synchronous=${synchronous.padEnd(6)}: ` +
        `${String(Math.round(rowsPerSecond)).padStart(6)} checkpoint rows/s, ` +
        `${cpuMicrosPerRow.toFixed(1)} µs CPU per row`,
    )
  }
}
