/**
 * The dashboard suite of `npm run bench`: the same scenarios on SQLite and Postgres (each in a
 * fresh process, 100,000 seeded runs), printed side by side — or one JSON line per store.
 * Postgres joins when it answers (bench/postgres_service.ts says how it is skipped).
 */
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { postgresAvailable } from '../postgres_service.ts'
import type { Latency } from './latency.ts'

interface StoreFigures {
  store: string
  runs: number
  seed_s: number
  figures: Record<string, Latency | null>
}

const runner = fileURLToPath(new URL('./run_dashboard.ts', import.meta.url))

export async function runDashboardSuite(options: { json: boolean }): Promise<void> {
  const stores = ['sqlite', ...((await postgresAvailable(false)) ? ['postgres'] : [])]
  const results: StoreFigures[] = []
  for (const store of stores) {
    const out = execFileSync(process.execPath, [runner, store], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    results.push(JSON.parse(out.trim().split('\n').at(-1) as string) as StoreFigures)
  }
  if (options.json)
    for (const r of results) console.log(JSON.stringify({ suite: 'dashboard', ...r }))
  else printSideBySide(results)
}

function printSideBySide(results: readonly StoreFigures[]): void {
  const runs = results[0]?.runs.toLocaleString('en-US') ?? '0'
  const title = `dashboard API, ${runs} runs (ms)`
  const headers = [title, ...results.flatMap((r) => [`${r.store} p50`, `${r.store} p95`])]
  const names = Object.keys(results[0]?.figures ?? {})
  const rows = names.map((name) => [
    name,
    ...results.flatMap((r) => [
      String(r.figures[name]?.p50_ms ?? '-'),
      String(r.figures[name]?.p95_ms ?? '-'),
    ]),
  ])
  rows.push(['seed (s)', ...results.flatMap((r) => [String(r.seed_s), ''])])
  const missing = names.filter((name) => results.some((r) => r.figures[name] == null))
  const widths = headers.map((h, i) =>
    Math.max(h.length, ...rows.map((r) => (r[i] as string).length)),
  )
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === 0 ? c.padEnd(widths[0] as number) : c.padStart(widths[i] as number)))
      .join('  ')
  console.log(`\n${line(headers)}`)
  for (const row of rows) console.log(line(row))
  if (missing.length > 0)
    console.log(`-: this dashboard does not serve the route or filter (${missing.join(', ')})`)
}
