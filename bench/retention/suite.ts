/**
 * `npm run bench -- --suite retention` (on request; issue 16): the standard workload's
 * throughput alone and while the background retention sweeper purges RETENTION_RUNS (default
 * 1,000,000) seeded finished runs, passes alternating (run_retention.ts), on SQLite (file, synchronous=full) and Postgres (fresh
 * schema) when it answers, each in a fresh process (run_retention.ts); then the table / file
 * sizes before, after the purge and after VACUUM. A table, or one JSON line per store.
 */
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { postgresAvailable } from '../postgres_service.ts'

const runner = fileURLToPath(new URL('./run_retention.ts', import.meta.url))

interface Figures {
  store: string
  seeded_runs: number
  seed_s: number
  alone_steps_per_s: number
  during_steps_per_s: number
  ratio: number
  paired_ratio_median: number
  samples: { alone: number[]; during: number[] }
  loop_delay_ms: Record<string, { max: number } | undefined>
  purge: { runs: number; open_s: number; runs_per_s: number }
  sizes: Record<string, unknown>
}

export async function runRetentionSuite(options: { json: boolean }): Promise<void> {
  const stores = ['sqlite', ...((await postgresAvailable(false)) ? ['postgres'] : [])]
  const results: Figures[] = []
  for (const store of stores) {
    const out = execFileSync(process.execPath, [runner, store], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      maxBuffer: 64 * 1024 * 1024,
    })
    results.push(JSON.parse(out.trim().split('\n').at(-1) as string) as Figures)
  }
  if (options.json) {
    for (const r of results) console.log(JSON.stringify({ suite: 'retention', ...r }))
    return
  }
  const header = [
    'store',
    'seeded',
    'seed_s',
    'alone steps/s',
    'during purge',
    'ratio',
    'paired ratio',
    'pairs',
    'loop max ms alone/during',
    'purge s',
    'purged runs/s',
  ]
  const rows = results.map((r) => [
    r.store,
    r.seeded_runs.toLocaleString('en-US'),
    String(r.seed_s),
    String(r.alone_steps_per_s),
    String(r.during_steps_per_s),
    String(r.ratio),
    String(r.paired_ratio_median),
    String(Math.min(r.samples.alone.length, r.samples.during.length)),
    `${r.loop_delay_ms.alone?.max ?? '-'}/${r.loop_delay_ms.during?.max ?? '-'}`,
    String(r.purge.open_s),
    String(r.purge.runs_per_s),
  ])
  const widths = header.map((h, i) =>
    Math.max(h.length, ...rows.map((r) => (r[i] as string).length)),
  )
  const line = (cells: string[]) => cells.map((c, i) => c.padStart(widths[i] as number)).join('  ')
  console.log(`\n${line(header)}`)
  for (const row of rows) console.log(line(row))
  for (const r of results) console.log(`sizes ${r.store}: ${JSON.stringify(r.sizes)}`)
}
