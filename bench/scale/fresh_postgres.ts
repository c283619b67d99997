/**
 * The scale suite's fresh-database figure (issue 18): 100,000 runs (one step each) started
 * through a driving engine on a new Postgres schema with autovacuum off for its tables, after
 * a warm-up of 400 runs in rounds of 20 (what a new deployment's first minutes do: every pooled
 * connection settles its statements' generic plans while `cairn_runs` is a few pages). Runs/s
 * per 10,000-run window; the last window over the first (target ≥ 0.8×).
 */
import { Engine, silentLogger } from '@cairn/core'
import pg from 'pg'
import { PG_URL, withScratchSchema } from '../postgres_service.ts'

const TOTAL = Number(process.env.SCALE_FRESH_RUNS ?? 100_000)
const WINDOW = TOTAL / 10
const CLIENTS = 50

export interface FreshFigures {
  runs: number
  runs_per_s_by_window: number[]
  last_over_first: number
}

export function freshPostgres(): Promise<FreshFigures> {
  return withScratchSchema('cairn_bench_fresh', async (schema) => {
    const { PostgresStore } = await import('@cairn/sql/postgres')
    const store = new PostgresStore({ connectionString: PG_URL, schema })
    await store.open()
    await withoutAutovacuum(schema)
    const engine = new Engine({ store, logger: silentLogger })
    try {
      engine.register('w', 1, async (ctx) => ctx.localStep('s', () => 1))
      await engine.startDriving()
      for (let round = 0; round < 20; round++)
        await Promise.all(
          Array.from({ length: 20 }, (_, k) =>
            engine.start('w', null, { runId: `warm-${round}-${k}` }),
          ),
        )
      const windows = await windowsOf(engine)
      return {
        runs: TOTAL,
        runs_per_s_by_window: windows,
        last_over_first: Math.round(((windows.at(-1) ?? 0) / (windows[0] ?? 1)) * 100) / 100,
      }
    } finally {
      await engine.close()
    }
  })
}

async function windowsOf(engine: Engine): Promise<number[]> {
  let next = 0
  const windows: number[] = []
  let windowStart = performance.now()
  const client = async () => {
    while (next < TOTAL) {
      const i = next++
      await engine.start('w', null, { runId: `run-${i}` })
      if ((i + 1) % WINDOW !== 0) continue
      const now = performance.now()
      windows.push(Math.round(WINDOW / ((now - windowStart) / 1000)))
      windowStart = now
    }
  }
  await Promise.all(Array.from({ length: CLIENTS }, client))
  return windows
}

async function withoutAutovacuum(schema: string): Promise<void> {
  const admin = new pg.Client({ connectionString: PG_URL })
  await admin.connect()
  try {
    const { rows } = await admin.query<{ tablename: string }>(
      'SELECT tablename FROM pg_tables WHERE schemaname = $1',
      [schema],
    )
    for (const { tablename } of rows)
      await admin.query(`ALTER TABLE "${schema}".${tablename} SET (autovacuum_enabled = false)`)
  } finally {
    await admin.end()
  }
}
