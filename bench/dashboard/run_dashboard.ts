/**
 * The dashboard figures on one store, in their own process: seed 100,000 runs, then time the
 * API through the real fetch handler. Prints one JSON line.
 *   node bench/dashboard/run_dashboard.ts sqlite|postgres
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { StateStore } from '@cairn/core/contracts'
import { PG_URL, withClient, withScratchSchema } from '../postgres_service.ts'
import { measureDashboard } from './measure_dashboard.ts'
import { planCheckpoints, planRuns } from './seed_plan.ts'

const STORES: Record<string, () => Promise<object>> = { sqlite: onSqlite, postgres: onPostgres }
const target = process.argv[2] ?? ''
const measure = STORES[target]
if (measure === undefined)
  throw new Error(`unknown dashboard bench store "${target}" (${Object.keys(STORES).join(', ')})`)
const { runs, attributes } = planRuns(Date.now())
const plan = { runs, attributes, checkpoints: planCheckpoints(runs) }
console.log(JSON.stringify({ store: target, ...(await measure()) }))

async function onSqlite(): Promise<object> {
  const { SqliteStore } = await import('@cairn/sql/sqlite')
  const { seedSqlite } = await import('./seed_sqlite.ts')
  const dir = mkdtempSync(join(tmpdir(), 'cairn-bench-dash-'))
  const path = join(dir, 'dashboard.db')
  try {
    return await seededFigures(
      () => new SqliteStore({ path }),
      async () => seedSqlite(path, plan),
    )
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

async function onPostgres(): Promise<object> {
  const { PostgresStore } = await import('@cairn/sql/postgres')
  const { seedPostgres } = await import('./seed_postgres.ts')
  return withScratchSchema('cairn_bench_dash', (schema) =>
    seededFigures(
      () => new PostgresStore({ connectionString: PG_URL, schema }),
      () => withClient(PG_URL, (client) => seedPostgres(client, schema, plan)),
    ),
  )
}

async function seededFigures(open: () => StateStore, seed: () => Promise<void>): Promise<object> {
  const empty = open()
  await empty.open()
  await empty.close()
  const start = performance.now()
  await seed()
  const seedS = Math.round((performance.now() - start) / 100) / 10
  return {
    runs: plan.runs.length,
    seed_s: seedS,
    figures: await measureDashboard(open(), runs),
  }
}
