/**
 * One benchmark row, in its own process (fresh heap, its own peak RSS): prints one JSON line.
 *   node bench/run_store.ts <store>
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Engine, MemoryStore, silentLogger, type StateStore } from '@cairn/core'
import { SqliteStore } from '@cairn/sql/sqlite'
import { rawSqlite } from './raw_sqlite.ts'
import { C, registerWorkload, runWorkload } from './workload.ts'

const store = process.argv[2] ?? 'memory'
const dir = mkdtempSync(join(tmpdir(), 'cairn-bench-'))

function engineStore(name: string): StateStore {
  if (name === 'memory') return new MemoryStore()
  if (name === 'sqlite-full')
    return new SqliteStore({ path: join(dir, 'bench.db'), synchronous: 'full' })
  if (name === 'sqlite-normal')
    return new SqliteStore({ path: join(dir, 'bench.db'), synchronous: 'normal' })
  throw new Error(`unknown store ${name}`)
}

async function measure(): Promise<Record<string, unknown>> {
  if (store === 'raw-sqlite-full') return { ...(await rawSqlite(join(dir, 'raw.db'), 'FULL')) }
  if (store === 'raw-sqlite-normal') return { ...(await rawSqlite(join(dir, 'raw.db'), 'NORMAL')) }
  const engine = new Engine({ store: engineStore(store), logger: silentLogger, concurrency: C })
  registerWorkload(engine)
  await engine.startDriving()
  const result = await runWorkload(engine)
  await engine.close()
  return { ...result }
}

try {
  const result = await measure()
  // maxRSS is the kernel's high-water mark for this process (KiB): no sampling overhead.
  const peakRssMb = Math.round(process.resourceUsage().maxRSS / 1024)
  console.log(JSON.stringify({ store, ...result, peak_rss_mb: peakRssMb }))
} finally {
  rmSync(dir, { recursive: true, force: true })
}
