/**
 * `npm run bench [-- --json] [-- --store memory,sqlite-full]`: the standard workload per store,
 * each in a fresh process, all in one run so ratios compare like with like on this noisy
 * machine. Prints a table (or one JSON object per line with --json) and engine/raw ratios.
 */
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const ALL = ['memory', 'sqlite-full', 'sqlite-normal', 'raw-sqlite-full', 'raw-sqlite-normal']
const FIELDS = [
  'store',
  'wall_s',
  'wf_per_s',
  'steps_per_s',
  'lat1_p50_ms',
  'lat1_p99_ms',
  'per_step_marginal_ms',
  'peak_rss_mb',
] as const

const args = process.argv.slice(2)
const json = args.includes('--json')
const storeArg = args.find((a, i) => args[i - 1] === '--store' || a.startsWith('--store='))
const stores = (storeArg?.replace('--store=', '') ?? ALL.join(',')).split(',').filter(Boolean)
for (const s of stores)
  if (!ALL.includes(s)) throw new Error(`--store ${s}: unknown (known: ${ALL.join(', ')})`)

const runner = fileURLToPath(new URL('./run_store.ts', import.meta.url))
const rows: Record<string, unknown>[] = []
for (const store of stores) {
  const out = execFileSync(process.execPath, [runner, store], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  rows.push(JSON.parse(out.trim().split('\n').at(-1) as string) as Record<string, unknown>)
}
addRatios(rows)
if (json) for (const row of rows) console.log(JSON.stringify(row))
else printTable(rows)

// vs_raw: the share of this machine's group-commit limit the engine reaches, same durability.
function addRatios(list: Record<string, unknown>[]): void {
  for (const row of list) {
    const raw = list.find((r) => r.store === `raw-${row.store as string}`)
    if (raw !== undefined)
      row.vs_raw = round2((row.steps_per_s as number) / (raw.steps_per_s as number))
  }
}

function printTable(list: Record<string, unknown>[]): void {
  const cols = [...FIELDS, 'vs_raw']
  const cells = list.map((row) => cols.map((c) => (row[c] === undefined ? '-' : String(row[c]))))
  const widths = cols.map((c, i) =>
    Math.max(c.length, ...cells.map((r) => (r[i] as string).length)),
  )
  const line = (values: string[]) =>
    values.map((v, i) => v.padStart(widths[i] as number)).join('  ')
  console.log(line(cols))
  for (const r of cells) console.log(line(r))
}

function round2(x: number): number {
  return Math.round(x * 100) / 100
}
