/**
 * `npm run bench -- --suite signals`: what one signal costs as a run's inbox grows. A run waits
 * for `go`; 4 × 1,000 signals of another name are sent to it one at a time (each awaited, as
 * a client sends them), with a driving engine on the same store; then `go`. Printed: the time
 * of each thousand and the last thousand over the first (flat is 1.0×: O(1) in the inbox), and
 * how long `go` then takes to complete the run (a wake reads the inbox once). SQLite (file,
 * synchronous=full) and Postgres when it answers.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Engine, silentLogger, type StateStore } from '@cairn/core'
import { PG_URL, postgresAvailable, withScratchSchema } from '../postgres_service.ts'

const CHUNKS = 4
const PER_CHUNK = 1_000

interface SignalFigures {
  store: string
  per_1000_ms: number[]
  last_over_first: number
  go_to_completed_ms: number
}

export async function runSignalSuite(options: { json: boolean }): Promise<void> {
  const rows = [await sqliteRow()]
  if (await postgresAvailable(false)) rows.push(await postgresRow())
  for (const row of rows) {
    if (options.json) console.log(JSON.stringify({ suite: 'signals', ...row }))
    else
      console.log(
        `signals ${row.store}: per 1,000 ${row.per_1000_ms.join(' / ')} ms, last/first ${row.last_over_first}×; go → completed ${row.go_to_completed_ms} ms`,
      )
  }
}

async function sqliteRow(): Promise<SignalFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-bench-signals-'))
  try {
    const { SqliteStore } = await import('@cairn/sql/sqlite')
    return await measure('sqlite-full', new SqliteStore({ path: join(dir, 'cairn.db') }))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

function postgresRow(): Promise<SignalFigures> {
  return withScratchSchema('cairn_bench_signals', async (schema) => {
    const { PostgresStore } = await import('@cairn/sql/postgres')
    return measure('postgres', new PostgresStore({ connectionString: PG_URL, schema }))
  })
}

async function measure(name: string, store: StateStore): Promise<SignalFigures> {
  const engine = new Engine({ store, logger: silentLogger })
  try {
    engine.register('patient', 1, async (ctx) => ctx.waitForSignal<string>('go'))
    await engine.startDriving()
    const { runId } = await engine.start('patient', null)
    while ((await store.getRun(runId))?.status !== 'waiting') await pause(5)
    const perChunk: number[] = []
    for (let chunk = 0; chunk < CHUNKS; chunk++) {
      const started = performance.now()
      for (let i = 0; i < PER_CHUNK; i++)
        await engine.signal({ runId, name: 'noise' }, chunk * PER_CHUNK + i)
      await engine.whenQuiet()
      perChunk.push(Math.round(performance.now() - started))
    }
    const started = performance.now()
    await engine.signal({ runId, name: 'go' }, 'now')
    await engine.waitForRun(runId, { timeoutMs: 60_000 })
    const first = perChunk[0] as number
    return {
      store: name,
      per_1000_ms: perChunk,
      last_over_first: Math.round(((perChunk.at(-1) as number) / first) * 100) / 100,
      go_to_completed_ms: Math.round(performance.now() - started),
    }
  } finally {
    await engine.close(1_000)
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
