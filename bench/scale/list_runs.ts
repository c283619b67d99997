/**
 * The scale suite's `listRuns` figure (issue 18): a list of statuses at 1,000,000 runs
 * (`SCALE_LIST_RUNS`) must cost what a page costs, not what the table holds (target ≤ 5 ms).
 * The retention seed (bench/retention/seed.ts: finished runs), then one run in 20 made `failed`
 * and one in 100 `waiting`; median of 7 calls of a 50-run page for each status list — among
 * them statuses no run has, the case a single `IN` over the status index walked the table for.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { DatabaseSync } from 'node:sqlite'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { RunStatus, StateStore } from '@cairn/core/contracts'
import { PG_URL, withClient, withScratchSchema } from '../postgres_service.ts'
import { seedPostgres, seedSqlite } from '../retention/seed.ts'

const RUNS = Number(process.env.SCALE_LIST_RUNS ?? 1_000_000)
const CALLS = 7

/** The lists asked for: label → statuses. */
const LISTS: ReadonlyArray<[string, RunStatus[]]> = [
  ['failed+waiting', ['failed', 'waiting']],
  ['completed+failed', ['completed', 'failed']],
  ['running+pending (none)', ['running', 'pending']],
  ['failed+cancelled+dead', ['failed', 'cancelled', 'dead']],
]

export interface ListRunsFigures {
  store: string
  runs: number
  /** Median ms of a 50-run page, per status list. */
  median_ms: Record<string, number>
}

/** Runs i with i % 20 = 0 failed, i % 100 = 1 waiting (due in a day): plain SQL on the seed. */
function reshapeStatements(t: (table: string) => string, key: string, day: number): string[] {
  return [
    `UPDATE ${t('cairn_runs')} SET status = 'failed', error = '{"message":"x"}' WHERE ${key} % 20 = 0`,
    `UPDATE ${t('cairn_runs')} SET status = 'waiting', finished_at = NULL, output = NULL,
       available_at = created_at + ${day} WHERE ${key} % 100 = 1`,
  ]
}

export async function listRunsOnSqlite(): Promise<ListRunsFigures> {
  const { SqliteStore } = await import('@cairn/sql/sqlite')
  const dir = mkdtempSync(join(tmpdir(), 'cairn-bench-list-'))
  const path = join(dir, 'list.db')
  try {
    const migrated = new SqliteStore({ path })
    await migrated.open()
    await migrated.close()
    const db = new DatabaseSync(path)
    try {
      seedSqlite(db, RUNS, Date.now())
      for (const text of reshapeStatements((x) => x, 'key', 86_400_000)) db.exec(text)
      db.exec('ANALYZE')
    } finally {
      db.close()
    }
    const store = new SqliteStore({ path })
    await store.open()
    try {
      return { store: 'sqlite', runs: RUNS, median_ms: await medians(store) }
    } finally {
      await store.close()
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

export function listRunsOnPostgres(): Promise<ListRunsFigures> {
  return withScratchSchema('cairn_bench_list', async (schema) => {
    const { PostgresStore } = await import('@cairn/sql/postgres')
    const store = new PostgresStore({ connectionString: PG_URL, schema })
    await store.open()
    try {
      await withClient(PG_URL, async (client) => {
        await seedPostgres(client, schema, RUNS, Date.now())
        const t = (table: string) => `"${schema}".${table}`
        for (const text of reshapeStatements(t, 'key', 86_400_000)) await client.query(text)
        await client.query(`VACUUM (ANALYZE) ${t('cairn_runs')}`)
      })
      return { store: 'postgres', runs: RUNS, median_ms: await medians(store) }
    } finally {
      await store.close()
    }
  })
}

async function medians(store: StateStore): Promise<Record<string, number>> {
  const out: Record<string, number> = {}
  for (const [label, status] of LISTS) {
    const times: number[] = []
    for (let i = 0; i < CALLS; i++) {
      const started = performance.now()
      await store.listRuns({ status, limit: 50 })
      times.push(performance.now() - started)
    }
    times.sort((a, b) => a - b)
    out[label] = Math.round((times[Math.floor(CALLS / 2)] as number) * 100) / 100
  }
  return out
}
