/**
 * `npm run bench -- --suite scale`: costs that must stay flat as a run's work grows (issue 18),
 * each printed as a ratio measured side by side in one process, per store (memory, SQLite file
 * with synchronous=full, Postgres when it answers):
 *
 * - **resume**: a run records N steps, waits for a signal, then takes one more step; the time
 *   from the signal to its completion (claim, history read, replay, the last step) per recorded
 *   position, at N = 50,000 over N = 1,000. Flat is 1.0×; the target is ≤ 2×.
 * - **suspend loop**: 2,000 iterations of (step, then a 1 ms sleep that suspends the run:
 *   `holdTimersUpToMs: 0`) over 2,000 plain steps. Each wake replays the history so far, so
 *   without a cache of the replayed state it grows as O(n²); the target is ≤ 3×.
 * - **fresh Postgres** (fresh_postgres.ts): 100,000 runs started on a new database with
 *   autovacuum off, runs/s per 10,000-run window, the last over the first (target ≥ 0.8×).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Engine, MemoryStore, silentLogger, type StateStore } from '@cairn/core'
import { PG_URL, postgresAvailable, withScratchSchema } from '../postgres_service.ts'
import { freshPostgres } from './fresh_postgres.ts'

const RESUME_SMALL = 1_000
const RESUME_LARGE = 50_000
const LOOP = 2_000

interface ScaleFigures {
  store: string
  resume_small_us_per_entry: number
  resume_large_us_per_entry: number
  resume_ratio: number
  loop_plain_ms: number
  loop_suspending_ms: number
  loop_ratio: number
}

type StoreFactory = () => Promise<{ store: StateStore; done: () => Promise<void> }>

export async function runScaleSuite(options: { json: boolean }): Promise<void> {
  const rows = [await measure('memory', memory), await measure('sqlite-full', sqlite)]
  const withPostgres = await postgresAvailable(false)
  if (withPostgres) rows.push(await measure('postgres', postgres))
  for (const row of rows) {
    if (options.json) console.log(JSON.stringify({ suite: 'scale', ...row }))
    else
      console.log(
        `scale ${row.store}: resume ${row.resume_small_us_per_entry} µs/position at ${RESUME_SMALL}, ` +
          `${row.resume_large_us_per_entry} at ${RESUME_LARGE} (${row.resume_ratio}×); ` +
          `${LOOP} steps ${row.loop_plain_ms} ms, with a suspend each ${row.loop_suspending_ms} ms (${row.loop_ratio}×)`,
      )
  }
  if (!withPostgres) return
  const fresh = await freshPostgres()
  if (options.json)
    console.log(JSON.stringify({ suite: 'scale', store: 'postgres-fresh', ...fresh }))
  else
    console.log(
      `scale postgres-fresh: ${fresh.runs} runs, runs/s per window ${fresh.runs_per_s_by_window.join(' ')}; last/first ${fresh.last_over_first}×`,
    )
}

async function measure(name: string, open: StoreFactory): Promise<ScaleFigures> {
  const small = (await withStore(open, (store) => resumeMs(store, RESUME_SMALL))) / RESUME_SMALL
  const large = (await withStore(open, (store) => resumeMs(store, RESUME_LARGE))) / RESUME_LARGE
  const plain = await withStore(open, (store) => loopMs(store, false))
  const suspending = await withStore(open, (store) => loopMs(store, true))
  return {
    store: name,
    resume_small_us_per_entry: round(small * 1000),
    resume_large_us_per_entry: round(large * 1000),
    resume_ratio: round(large / small),
    loop_plain_ms: round(plain),
    loop_suspending_ms: round(suspending),
    loop_ratio: round(suspending / plain),
  }
}

/** From the signal to the run's end, after it recorded `n` steps and suspended. */
async function resumeMs(store: StateStore, n: number): Promise<number> {
  const engine = new Engine({ store, logger: silentLogger })
  try {
    engine.register('long', 1, async (ctx) => {
      for (let i = 0; i < n; i++) await ctx.localStep('s', () => i)
      await ctx.waitForSignal('go')
      return ctx.localStep('end', () => 'done')
    })
    await engine.startDriving()
    const { runId } = await engine.start('long', null)
    while ((await store.getRun(runId))?.status !== 'waiting') await pause(20)
    const started = performance.now()
    await engine.signal({ runId, name: 'go' }, null)
    await engine.waitForRun(runId, { timeoutMs: 600_000 })
    return performance.now() - started
  } finally {
    await engine.close()
  }
}

/** A run of LOOP steps, each followed (`suspending`) by a sleep that suspends it. */
async function loopMs(store: StateStore, suspending: boolean): Promise<number> {
  const engine = new Engine({ store, logger: silentLogger, holdTimersUpToMs: 0 })
  try {
    engine.register('loop', 1, async (ctx) => {
      for (let i = 0; i < LOOP; i++) {
        await ctx.localStep('s', () => i)
        if (suspending) await ctx.sleep(1)
      }
      return LOOP
    })
    await engine.startDriving()
    const started = performance.now()
    const { runId } = await engine.start('loop', null)
    await engine.waitForRun(runId, { timeoutMs: 1_800_000 })
    return performance.now() - started
  } finally {
    await engine.close()
  }
}

async function withStore<T>(open: StoreFactory, fn: (store: StateStore) => Promise<T>): Promise<T> {
  const { store, done } = await open()
  try {
    return await fn(store)
  } finally {
    await done()
  }
}

const memory: StoreFactory = async () => ({ store: new MemoryStore(), done: async () => {} })

const sqlite: StoreFactory = async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-bench-scale-'))
  const { SqliteStore } = await import('@cairn/sql/sqlite')
  return {
    store: new SqliteStore({ path: join(dir, 'cairn.db') }),
    done: async () => rmSync(dir, { recursive: true, force: true }),
  }
}

const postgres: StoreFactory = async () => {
  const { PostgresStore } = await import('@cairn/sql/postgres')
  const { promise: closed, resolve: close } = Promise.withResolvers<void>()
  const { promise: ready, resolve: opened } = Promise.withResolvers<StateStore>()
  const scratch = withScratchSchema('cairn_bench_scale', async (schema) => {
    opened(new PostgresStore({ connectionString: PG_URL, schema }))
    await closed
  })
  return {
    store: await ready,
    done: async () => {
      close()
      await scratch
    },
  }
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

function round(value: number): number {
  return Math.round(value * 100) / 100
}
