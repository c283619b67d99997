/**
 * `npm run bench -- --suite scale`: costs that must stay flat as a run's work grows (issue 18),
 * each printed as a ratio measured side by side in one process, per store (memory, SQLite file
 * with synchronous=full, Postgres and MariaDB/MySQL when they answer):
 *
 * - **resume**: a run records N steps, waits for a signal, then takes one more step; the time
 *   from the signal to its completion (claim, history read, replay, the last step) per recorded
 *   position, at N = 50,000 over N = 1,000. The run cache is off (`maxCachedRuns: 0`): this is
 *   the cost of a run woken on another engine or after a restart. Flat is 1.0×; target ≤ 2×.
 * - **suspend loop**: 2,000 iterations of (step, then a 1 ms sleep) where every sleep suspends
 *   the run (`holdTimersUpToMs: 0`), over the same loop with the sleeps held in memory (no
 *   suspend): the ratio is what suspending and waking costs, the sleeps themselves on both
 *   sides. The target is ≤ 3×. With the run cache each wake resumes the paused body; without it
 *   (`loop_replayed_ms`, printed beside) each wake replays the history so far: O(n²).
 * - **children**: a parent that starts 2,000 children one after the other, each finishing before
 *   the next starts (the parent suspends for each), over the same with 250. Linear is 8×; the
 *   target is ≤ 10×. Both loops go on from the run cache (docs/run-cache.md) instead of replaying.
 * - **listRuns** (list_runs.ts): a page of runs with a list of statuses at 1,000,000 runs, on
 *   SQLite and Postgres (target ≤ 5 ms).
 * - **fresh Postgres** (fresh_postgres.ts): 100,000 runs started on a new database with
 *   autovacuum off, runs/s per 10,000-run window, the last over the first (target ≥ 0.8×).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Engine, MemoryStore, silentLogger, type StateStore } from '@cairn/core'
import { MYSQL_URL, mysqlAvailable, withScratchDatabase } from '../mysql_service.ts'
import { PG_URL, postgresAvailable, withScratchSchema } from '../postgres_service.ts'
import { freshPostgres } from './fresh_postgres.ts'
import { listRunsOnPostgres, listRunsOnSqlite, type ListRunsFigures } from './list_runs.ts'

// Sizes: the issue's; each may be made smaller (SCALE_*) for a quick look at the shapes (the CI
// test tests/bench/scale_shape.test.ts does), never to report a figure.
const RESUME_SMALL = size('SCALE_RESUME_SMALL', 1_000)
const RESUME_LARGE = size('SCALE_RESUME_LARGE', 50_000)
const LOOP = size('SCALE_LOOP', 2_000)
const CHILDREN_SMALL = size('SCALE_CHILDREN_SMALL', 250)
const CHILDREN_LARGE = size('SCALE_CHILDREN_LARGE', 2_000)

function size(name: string, fallback: number): number {
  const given = process.env[name]
  if (given === undefined) return fallback
  const value = Number(given)
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`${name}: a positive integer`)
  return value
}

interface ScaleFigures {
  store: string
  resume_small_us_per_entry: number
  resume_large_us_per_entry: number
  resume_ratio: number
  loop_plain_ms: number
  loop_suspending_ms: number
  loop_ratio: number
  loop_replayed_ms: number
  loop_replayed_ratio: number
  children_small_ms: number
  children_large_ms: number
  children_ratio: number
}

type StoreFactory = () => Promise<{ store: StateStore; done: () => Promise<void> }>

export async function runScaleSuite(options: { json: boolean }): Promise<void> {
  const rows = [await measure('memory', memory), await measure('sqlite-full', sqlite)]
  const withPostgres = await postgresAvailable(false)
  if (withPostgres) rows.push(await measure('postgres', postgres))
  if (await mysqlAvailable(false)) rows.push(await measure('mysql', mysqlStore))
  for (const row of rows) {
    if (options.json) console.log(JSON.stringify({ suite: 'scale', ...row }))
    else
      console.log(
        `scale ${row.store}: resume ${row.resume_small_us_per_entry} µs/position at ${RESUME_SMALL}, ` +
          `${row.resume_large_us_per_entry} at ${RESUME_LARGE} (${row.resume_ratio}×); ` +
          `${LOOP} steps ${row.loop_plain_ms} ms, with a suspend each ${row.loop_suspending_ms} ms (${row.loop_ratio}×), replayed ${row.loop_replayed_ms} ms (${row.loop_replayed_ratio}×); ` +
          `children one at a time: ${CHILDREN_SMALL} ${row.children_small_ms} ms, ${CHILDREN_LARGE} ${row.children_large_ms} ms (${row.children_ratio}×)`,
      )
  }
  printList(await listRunsOnSqlite(), options)
  if (!withPostgres) return
  printList(await listRunsOnPostgres(), options)
  const fresh = await freshPostgres()
  if (options.json)
    console.log(JSON.stringify({ suite: 'scale', store: 'postgres-fresh', ...fresh }))
  else
    console.log(
      `scale postgres-fresh: ${fresh.runs} runs, runs/s per window ${fresh.runs_per_s_by_window.join(' ')}; last/first ${fresh.last_over_first}×`,
    )
}

function printList(figures: ListRunsFigures, options: { json: boolean }): void {
  if (options.json) return console.log(JSON.stringify({ suite: 'scale', list_runs: figures }))
  const shown = Object.entries(figures.median_ms).map(([label, ms]) => `${label} ${ms} ms`)
  console.log(`scale ${figures.store} listRuns at ${figures.runs} runs: ${shown.join(', ')}`)
}

async function measure(name: string, open: StoreFactory): Promise<ScaleFigures> {
  const small = (await withStore(open, (store) => resumeMs(store, RESUME_SMALL))) / RESUME_SMALL
  const large = (await withStore(open, (store) => resumeMs(store, RESUME_LARGE))) / RESUME_LARGE
  const plain = await withStore(open, (store) => loopMs(store, { suspending: false }))
  const suspending = await withStore(open, (store) => loopMs(store, { suspending: true }))
  const replayed = await withStore(open, (store) =>
    loopMs(store, { suspending: true, maxCachedRuns: 0 }),
  )
  const fewChildren = await withStore(open, (store) => childrenMs(store, CHILDREN_SMALL))
  const manyChildren = await withStore(open, (store) => childrenMs(store, CHILDREN_LARGE))
  return {
    store: name,
    resume_small_us_per_entry: round(small * 1000),
    resume_large_us_per_entry: round(large * 1000),
    resume_ratio: round(large / small),
    loop_plain_ms: round(plain),
    loop_suspending_ms: round(suspending),
    loop_ratio: round(suspending / plain),
    loop_replayed_ms: round(replayed),
    loop_replayed_ratio: round(replayed / plain),
    children_small_ms: round(fewChildren),
    children_large_ms: round(manyChildren),
    children_ratio: round(manyChildren / fewChildren),
  }
}

/** From the signal to the run's end, after it recorded `n` steps and suspended. */
async function resumeMs(store: StateStore, n: number): Promise<number> {
  const engine = new Engine({ store, logger: silentLogger, maxCachedRuns: 0 })
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

/**
 * A run of LOOP (step, 1 ms sleep) pairs; `suspending`: every sleep suspends the run, else it
 * is held in memory under the lease. `maxCachedRuns`: the run cache's size (default: on).
 */
async function loopMs(
  store: StateStore,
  options: { suspending: boolean; maxCachedRuns?: number },
): Promise<number> {
  const engine = new Engine({
    store,
    logger: silentLogger,
    holdTimersUpToMs: options.suspending ? 0 : 1_000,
    ...(options.maxCachedRuns === undefined ? {} : { maxCachedRuns: options.maxCachedRuns }),
  })
  try {
    engine.register('loop', 1, async (ctx) => {
      for (let i = 0; i < LOOP; i++) {
        await ctx.localStep('s', () => i)
        await ctx.sleep(1)
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

/** A parent running `n` children one after the other: it suspends for each child's outcome. */
async function childrenMs(store: StateStore, n: number): Promise<number> {
  const engine = new Engine({ store, logger: silentLogger, holdTimersUpToMs: 0 })
  try {
    engine.register('kid', 1, async (ctx, i: number) => ctx.localStep('k', () => i))
    engine.register('parent', 1, async (ctx) => {
      let sum = 0
      for (let i = 0; i < n; i++) sum += await ctx.child<number>('kid', i)
      return sum
    })
    await engine.startDriving()
    const started = performance.now()
    const { runId } = await engine.start('parent', null)
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
  return scratchStore((use) =>
    withScratchSchema('cairn_bench_scale', (schema) =>
      use(new PostgresStore({ connectionString: PG_URL, schema })),
    ),
  )
}

const mysqlStore: StoreFactory = async () => {
  const { MysqlStore } = await import('@cairn/sql/mysql')
  return scratchStore((use) =>
    withScratchDatabase('cairn_bench_scale', (database) =>
      use(new MysqlStore({ uri: MYSQL_URL, database })),
    ),
  )
}

/**
 * A store on a scratch schema or database that `scratch` creates, hands to `use` and drops
 * once `use` returns: kept open until the factory's `done`.
 */
async function scratchStore(
  scratch: (use: (store: StateStore) => Promise<void>) => Promise<void>,
): Promise<{ store: StateStore; done: () => Promise<void> }> {
  const { promise: closed, resolve: close } = Promise.withResolvers<void>()
  const { promise: ready, resolve: opened } = Promise.withResolvers<StateStore>()
  const dropped = scratch(async (store) => {
    opened(store)
    await closed
  })
  // A scratch that fails (or ends) before it made the store must not leave this waiting; its
  // failure after that is done()'s to report.
  let made = false
  const ended = dropped.then(() => {
    if (!made) throw new Error('the scratch schema or database ended before its store was made')
  })
  ended.catch(() => {})
  const store = await Promise.race([ready, ended.then(() => ready)])
  made = true
  return {
    store,
    done: async () => {
      close()
      await dropped
    },
  }
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

function round(value: number): number {
  return Math.round(value * 100) / 100
}
