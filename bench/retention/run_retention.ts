/**
 * The retention figures on one store, in their own process (issue 16): seed N finished runs
 * (seed.ts), then the standard workload's throughput pass (W × S, C in flight: bench/workload.ts)
 * on an engine with a retention policy that expires every seeded run — as a deployment turns
 * retention on over an old database: the engine's own background sweeper deletes them (pages
 * of 100 roots, transactions of at most 1,000 runs). The sweeper's store calls pass a gate (a
 * proxy of the store): closed, the sweeper waits between two calls, with no transaction open.
 * RETENTION_PAIRS pairs of passes, spread over the purge, each an "alone" pass (gate closed) and
 * a "during" pass (gate open), in ABBA order: the ratio compares passes measured side by side
 * on the same engine and database. Between pairs the sweeper runs on its own. Then the sizes of
 * the tables (file) before, after the purge and after VACUUM. Prints one JSON line.
 *   node bench/retention/run_retention.ts sqlite|postgres
 *
 * Environment: RETENTION_RUNS (seeded runs, default 1,000,000), RETENTION_PAIRS (default 30),
 * RETENTION_WINDOW_MS (the most one opening of the gate lets a sweeper that never yields to the
 * event loop run, default 5,000: on SQLite the gate cannot be closed from outside it then).
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { Engine, silentLogger, type StateStore } from '@cairn/core'
import type { DeleteRunTreesResult } from '@cairn/core/contracts'
import { PG_URL, withClient, withScratchSchema } from '../postgres_service.ts'
import {
  C,
  S,
  W,
  WARM_UP_RUNS,
  engineRunOne,
  percentile,
  registerWorkload,
  round,
  throughput,
  warmUp,
} from '../workload.ts'
import { seedCounts, seedPostgres, seedSqlite } from './seed.ts'

const RUNS = envInt('RETENTION_RUNS', 1_000_000)
/** The longest the sweeper may run in one opening of the gate when it never yields (Gate). */
const WINDOW_MS = envInt('RETENTION_WINDOW_MS', 5_000)
/** Pairs of passes (alone, during), spread over the purge. */
const PAIRS = envInt('RETENTION_PAIRS', 30)
/** What a deployment writes: expires every seeded run (≥ 35 days old), none of the workload's. */
const RETENTION = {
  policies: [{ statuses: ['completed' as const], maxAge: '7 days' }],
  interval: '1m',
  batchSize: 100,
}

interface Target {
  name: string
  /** A new store instance on the same database (an engine's close closes its store). */
  store(): StateStore
  seed(now: number): Promise<void>
  sizes(): Promise<Record<string, number>>
  /** Rows of runs and checkpoints (after the purge: the workload's). */
  rows(): Promise<{ runs: number; checkpoints: number }>
  /** After the purge: VACUUM (each server's kinds), with the sizes after each. */
  vacuum(): Promise<Record<string, unknown>>
}

async function onSqlite(): Promise<object> {
  const { SqliteStore } = await import('@cairn/sql/sqlite')
  const dir = mkdtempSync(join(tmpdir(), 'cairn-bench-retention-'))
  const path = join(dir, 'retention.db')
  const fileMb = () => ({
    file_mb: mb(sizeOf(path)),
    wal_mb: mb(sizeOf(`${path}-wal`)),
  })
  try {
    return await measure({
      name: 'sqlite',
      store: () => new SqliteStore({ path }),
      seed: async (now) => {
        const db = new DatabaseSync(path)
        try {
          seedSqlite(db, RUNS, now, progress)
        } finally {
          db.close()
        }
      },
      sizes: async () => fileMb(),
      rows: async () => {
        const db = new DatabaseSync(path, { readOnly: true })
        try {
          const count = (table: string) =>
            Number((db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n)
          return { runs: count('cairn_runs'), checkpoints: count('cairn_checkpoints') }
        } finally {
          db.close()
        }
      },
      vacuum: async () => {
        const db = new DatabaseSync(path)
        try {
          db.exec('PRAGMA wal_checkpoint(TRUNCATE)')
          const pages = (q: string) =>
            Number((db.prepare(q).get() as Record<string, unknown>)[q.replace('PRAGMA ', '')])
          const free = pages('PRAGMA freelist_count') * pages('PRAGMA page_size')
          const checkpointed = { ...fileMb(), free_mb: mb(free) }
          const t0 = performance.now()
          db.exec('VACUUM')
          const vacuumS = seconds(t0)
          db.exec('PRAGMA wal_checkpoint(TRUNCATE)')
          return { checkpointed, vacuum_s: vacuumS, after_vacuum: fileMb() }
        } finally {
          db.close()
        }
      },
    })
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

function onPostgres(): Promise<object> {
  return withScratchSchema('cairn_bench_ret', async (schema) => {
    const { PostgresStore } = await import('@cairn/sql/postgres')
    const sizes = () =>
      withClient(PG_URL, async (c) => {
        const { rows } = await c.query(
          `SELECT t, pg_total_relation_size(format('%I.%I', $1::text, t)) AS bytes
           FROM unnest($2::text[]) AS t`,
          [
            schema,
            ['cairn_runs', 'cairn_checkpoints', 'cairn_search_attributes', 'cairn_run_tags'],
          ],
        )
        const out: Record<string, number> = {}
        for (const r of rows as { t: string; bytes: string }[])
          out[`${r.t}_mb`] = mb(Number(r.bytes))
        out.total_mb = round(
          Object.values(out).reduce((a, b) => a + b, 0),
          1,
        )
        return out
      })
    const tables = ['cairn_runs', 'cairn_checkpoints', 'cairn_search_attributes', 'cairn_run_tags']
      .map((t) => `"${schema}".${t}`)
      .join(', ')
    return measure({
      name: 'postgres',
      store: () => new PostgresStore({ connectionString: PG_URL, schema }),
      seed: (now) => withClient(PG_URL, (c) => seedPostgres(c, schema, RUNS, now, progress)),
      sizes,
      rows: () =>
        withClient(PG_URL, async (c) => {
          const count = async (table: string) =>
            Number((await c.query(`SELECT count(*) AS n FROM "${schema}".${table}`)).rows[0].n)
          return { runs: await count('cairn_runs'), checkpoints: await count('cairn_checkpoints') }
        }),
      vacuum: async () => {
        const t0 = performance.now()
        await withClient(PG_URL, (c) => c.query(`VACUUM (ANALYZE) ${tables}`))
        const vacuumS = seconds(t0)
        const afterVacuum = await sizes()
        const t1 = performance.now()
        await withClient(PG_URL, (c) => c.query(`VACUUM (FULL, ANALYZE) ${tables}`))
        return {
          vacuum_s: vacuumS,
          after_vacuum: afterVacuum,
          vacuum_full_s: seconds(t1),
          after_vacuum_full: await sizes(),
        }
      },
    })
  })
}

async function measure(t: Target): Promise<object> {
  const empty = t.store()
  await empty.open() // migrations
  await empty.close()
  const now = Date.now()
  const t0 = performance.now()
  await t.seed(now)
  const seedS = seconds(t0)
  const before = await t.sizes()

  // The engine a deployment runs: the workload's engine with retention turned on, its
  // background sweeper starting with driving. Its retention calls pass a gate, closed for the
  // passes measured alone: the sweeper then waits between two store calls (no transaction
  // open), so "alone" and "during" passes alternate on the same engine and database.
  const gate = new Gate()
  const calls = new CallTimes()
  const engine = new Engine({
    store: gated(t.store(), gate, calls),
    logger: silentLogger,
    concurrency: C,
    retention: RETENTION,
  })
  registerWorkload(engine)
  let sweepDone = false
  const swept = new Promise<{ roots: number; runs: number; refused: number }>((resolve) =>
    engine.on('retention:swept', (e) => {
      sweepDone = true
      resolve(e)
    }),
  )
  await engine.startDriving()
  const runOne = engineRunOne(engine)
  await warmUp(runOne, WARM_UP_RUNS)

  const alone: number[] = []
  const during: number[] = []
  const pairs: number[] = []
  const lag = new LoopLag()
  const started = performance.now()
  // PAIRS pairs of passes spread over the purge: after pair k the sweeper runs on its own
  // (no workload) until (k + 1) / PAIRS of the seeded runs are gone.
  for (let pair = 0; pair < PAIRS && !sweepDone; pair++) {
    const figures: Record<string, number> = {}
    // ABBA: which goes first alternates, so a drift in the machine's speed cancels out.
    for (const phase of pair % 2 === 0 ? ['alone', 'during'] : ['during', 'alone']) {
      const purging = phase === 'during'
      if (purging) gate.open('workload', WINDOW_MS)
      lag.phase = phase
      const wall = await throughput(runOne)
      lag.phase = null
      gate.close()
      // A pass the sweep ended in the middle of measured the purge only in part.
      if (purging && sweepDone) continue
      figures[phase] = round((W * S) / wall, 0)
      ;(purging ? during : alone).push(figures[phase] as number)
    }
    if (figures.alone !== undefined && figures.during !== undefined)
      pairs.push(figures.during / figures.alone)
    const target = ((pair + 1) / PAIRS) * RUNS
    while (!sweepDone && calls.deleted < target) {
      gate.open('alone', WINDOW_MS)
      await Promise.race([swept, pause(50)])
      gate.close()
    }
  }
  gate.open('alone', Number.POSITIVE_INFINITY)
  lag.stop()
  const sweep = await swept
  gate.close()
  const elapsedS = (performance.now() - started) / 1000
  gate.open('closing', Number.POSITIVE_INFINITY)
  await engine.close()

  const afterPurge = { ...(await t.sizes()), rows_left: await t.rows() }
  const vacuum = await t.vacuum()
  const aloneMedian = percentile(alone, 50)
  const duringMedian = percentile(during, 50)
  return {
    seeded_runs: RUNS,
    seeded_rows: seedCounts(RUNS),
    seed_s: seedS,
    workload: `W=${W} x S=${S}, C=${C}; ${PAIRS} pairs of passes (alone, during purge), ABBA`,
    alone_steps_per_s: aloneMedian,
    during_steps_per_s: duringMedian,
    ratio: round(duringMedian / aloneMedian, 2),
    paired_ratio_median: round(percentile(pairs, 50), 2),
    samples: { alone, during },
    loop_delay_ms: lag.report(),
    purge: {
      roots: sweep.roots,
      runs: sweep.runs,
      refused: sweep.refused,
      // The sweeper runs only while the gate is open: during the workload's passes, or alone.
      open_s: round((gate.openMs.workload + gate.openMs.alone) / 1000, 1),
      runs_per_s: round(sweep.runs / ((gate.openMs.workload + gate.openMs.alone) / 1000), 0),
      with_workload: rate(calls.deletedBy.workload, gate.openMs.workload),
      alone: rate(calls.deletedBy.alone, gate.openMs.alone),
      elapsed_s: round(elapsedS, 1),
      windows_cut_by_deadline: gate.cut,
      calls: calls.report(),
    },
    sizes: { before, after_purge: afterPurge, ...vacuum },
  }
}

/**
 * Lets the sweeper's store calls through while open. Closed, a call waits for the next
 * opening. An opening lasts until close() or `windowMs`, whichever comes first: a sweeper that
 * never yields to the event loop (so close() cannot run) is stopped at its next call.
 */
class Gate {
  /** Time open, by what ran meanwhile. */
  readonly openMs: { workload: number; alone: number; closing: number } = {
    workload: 0,
    alone: 0,
    closing: 0,
  }
  /** Openings ended by their deadline, not by close(). */
  cut = 0
  mode: 'workload' | 'alone' | 'closing' | null = null
  #deadline = 0
  #openedAt = 0
  #waiters: (() => void)[] = []

  open(mode: 'workload' | 'alone' | 'closing', windowMs: number): void {
    this.mode = mode
    this.#openedAt = performance.now()
    this.#deadline = this.#openedAt + windowMs
    for (const wake of this.#waiters.splice(0)) wake()
  }

  close(): void {
    if (this.mode === null) return
    this.openMs[this.mode] += performance.now() - this.#openedAt
    this.mode = null
  }

  async pass(): Promise<void> {
    if (this.mode !== null && performance.now() > this.#deadline) {
      this.close()
      this.cut++
    }
    while (this.mode === null) await new Promise<void>((resolve) => this.#waiters.push(resolve))
  }
}

/**
 * How late a 10 ms interval timer fires, per phase: how long the event loop was held (a
 * synchronous SQLite transaction holds it; a chain of already-resolved promises too).
 */
class LoopLag {
  phase: string | null = null
  readonly #lags = new Map<string, number[]>()
  #last = performance.now()
  readonly #timer = setInterval(() => {
    const now = performance.now()
    const late = now - this.#last - 10
    this.#last = now
    if (this.phase === null) return
    const list = this.#lags.get(this.phase) ?? []
    list.push(Math.max(0, late))
    this.#lags.set(this.phase, list)
  }, 10)

  stop(): void {
    clearInterval(this.#timer)
  }

  report(): Record<string, { p99: number; max: number }> {
    const out: Record<string, { p99: number; max: number }> = {}
    for (const [phase, list] of this.#lags)
      out[phase] = { p99: round(percentile(list, 99), 1), max: round(Math.max(...list), 1) }
    return out
  }
}

/** Times of the store calls the sweeper makes, and how many runs its deletions took. */
class CallTimes {
  readonly #times = new Map<string, number[]>()
  /** Runs deleted so far, and by the gate's mode when the call began. */
  deleted = 0
  readonly deletedBy: Record<string, number> = { workload: 0, alone: 0 }

  add(name: string, ms: number): void {
    const list = this.#times.get(name) ?? []
    list.push(ms)
    this.#times.set(name, list)
  }

  report(): Record<string, object> {
    const out: Record<string, object> = {}
    for (const [name, list] of this.#times)
      out[name] = {
        count: list.length,
        total_s: round(list.reduce((a, b) => a + b, 0) / 1000, 1),
        p50_ms: round(percentile(list, 50), 1),
        p99_ms: round(percentile(list, 99), 1),
        max_ms: round(Math.max(...list), 1),
      }
    return out
  }
}

/** `store`, its retention calls passing `gate` first, then timed (wall time of the call). */
function gated(store: StateStore, gate: Gate, calls: CallTimes): StateStore {
  const watched = new Set(['expiredRuns', 'deleteRunTrees', 'retentionCutoff'])
  return new Proxy(store, {
    get(target, key) {
      const value = Reflect.get(target, key, target) as unknown
      if (typeof value !== 'function') return value
      const bound = (value as (...args: unknown[]) => unknown).bind(target)
      if (typeof key !== 'string' || !watched.has(key)) return bound
      return async (...args: unknown[]) => {
        await gate.pass()
        const mode = gate.mode as string
        const t0 = performance.now()
        try {
          const result = await (bound(...args) as Promise<unknown>)
          if (key === 'deleteRunTrees') {
            let runs = 0
            for (const tree of (result as DeleteRunTreesResult).trees)
              if ('runs' in tree) runs += tree.runs
            calls.deleted += runs
            calls.deletedBy[mode] = (calls.deletedBy[mode] ?? 0) + runs
          }
          return result
        } finally {
          calls.add(key, performance.now() - t0)
        }
      }
    },
  })
}

function rate(runs: number | undefined, openMs: number | undefined): object {
  const s = (openMs ?? 0) / 1000
  return {
    runs: runs ?? 0,
    open_s: round(s, 1),
    runs_per_s: s === 0 ? null : round((runs ?? 0) / s, 0),
  }
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

function progress(done: number): void {
  if (done % 200_000 === 0 || done === RUNS) console.error(`retention bench: seeded ${done} runs`)
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size
  } catch {
    return 0
  }
}

function mb(bytes: number): number {
  return round(bytes / 1024 / 1024, 1)
}

function seconds(since: number): number {
  return round((performance.now() - since) / 1000, 1)
}

function envInt(name: string, fallback: number): number {
  const raw = process.env[name]
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw.replaceAll('_', ''))
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`)
  return value
}

// Last: the classes and functions above are initialized by now.
const TARGETS: Record<string, () => Promise<object>> = { sqlite: onSqlite, postgres: onPostgres }
const target = process.argv[2] ?? ''
const run = TARGETS[target]
if (run === undefined)
  throw new Error(`unknown retention bench store "${target}" (${Object.keys(TARGETS).join(', ')})`)
console.log(JSON.stringify({ store: target, ...(await run()) }))
