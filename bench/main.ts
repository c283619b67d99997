/**
 * `npm run bench [-- --json] [-- --store memory,sqlite-full] [-- --suite engine,dashboard,render,signals,scale,retention,retention-plans]`:
 * the engine suite — the standard workload per row, each in a fresh process, all in one run so
 * ratios compare like with like on this noisy machine; a table (or one JSON object per line
 * with --json) with engine/raw and engine/DBOS ratios; rows needing Postgres join the default
 * set only when it answers — then the dashboard API suite (bench/dashboard/suite.ts) and the
 * console render figure (bench/dashboard/render_suite.ts). `--suite engine,dashboard,render`
 * selects (default: those three; `signals`, what one signal costs as an inbox grows
 * (bench/signals/suite.ts), `scale`, costs that must stay flat as a run grows (bench/scale/
 * suite.ts), `retention`, the workload while retention purges 1,000,000 runs
 * (bench/retention/suite.ts), and `retention-plans`, the plans of its statements
 * (bench/retention/plans.ts), on request); `--store` alone means the engine suite only.
 */
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { runRenderSuite } from './dashboard/render_suite.ts'
import { runDashboardSuite } from './dashboard/suite.ts'
import { runSignalSuite } from './signals/suite.ts'
import { mysqlAvailable } from './mysql_service.ts'
import { postgresAvailable } from './postgres_service.ts'
import { ROWS } from './rows.ts'

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
const suites = selectSuites()
const stores = suites.includes('engine') ? await selectRows(storeArg?.replace('--store=', '')) : []

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
else if (rows.length > 0) printTable(rows)
if (suites.includes('dashboard')) await runDashboardSuite({ json })
if (suites.includes('render')) runRenderSuite({ json })
if (suites.includes('signals')) await runSignalSuite({ json })
if (suites.includes('scale')) await (await import('./scale/suite.ts')).runScaleSuite({ json })
if (suites.includes('retention'))
  await (await import('./retention/suite.ts')).runRetentionSuite({ json })
if (suites.includes('retention-plans'))
  await (await import('./retention/plans.ts')).runRetentionPlans({ json })

/** --suite's list; default every suite, or the engine suite alone with --store. */
function selectSuites(): string[] {
  const known = [
    'engine',
    'dashboard',
    'render',
    'signals',
    'scale',
    'retention',
    'retention-plans',
  ]
  // On request only: they measure one cost, not the standard workload.
  const onRequest = ['signals', 'scale', 'retention', 'retention-plans']
  const arg = args.find((a, i) => args[i - 1] === '--suite' || a.startsWith('--suite='))
  const named = arg?.replace('--suite=', '').split(',').filter(Boolean)
  for (const s of named ?? [])
    if (!known.includes(s)) throw new Error(`--suite ${s}: unknown (known: ${known.join(', ')})`)
  return (
    named ?? (storeArg === undefined ? known.filter((s) => !onRequest.includes(s)) : ['engine'])
  )
}

/** Rows named by --store (their services must answer), else the default set minus rows whose service is down. */
async function selectRows(arg: string | undefined): Promise<string[]> {
  const named = arg?.split(',').filter(Boolean)
  for (const s of named ?? [])
    if (ROWS[s] === undefined)
      throw new Error(`--store ${s}: unknown (known: ${Object.keys(ROWS).join(', ')})`)
  const wanted = named ?? Object.keys(ROWS).filter((s) => ROWS[s]?.inDefault)
  let rows = wanted
  for (const [service, available] of [
    ['postgres', postgresAvailable],
    ['mysql', mysqlAvailable],
  ] as const) {
    const needed = rows.some((s) => ROWS[s]?.service === service)
    if (needed && !(await available(named !== undefined)))
      rows = rows.filter((s) => ROWS[s]?.service !== service)
  }
  return rows
}

// vs_raw: the share of this machine's group-commit limit the engine reaches, same durability.
// vs_dbos: engine throughput over DBOS's on the same workload, measured in the same run.
function addRatios(list: Record<string, unknown>[]): void {
  const dbos = list.find((r) => r.store === 'dbos')
  for (const row of list) {
    if (ROWS[row.store as string]?.kind !== 'engine') continue
    const raw = list.find((r) => r.store === `raw-${row.store as string}`)
    if (raw !== undefined) row.vs_raw = ratio(row, raw)
    if (dbos !== undefined) row.vs_dbos = ratio(row, dbos)
  }
}

function printTable(list: Record<string, unknown>[]): void {
  const fixed = [...FIELDS, 'vs_raw', ...(list.some((r) => r.store === 'dbos') ? ['vs_dbos'] : [])]
  // Rows measuring something else (a rate's accuracy) bring their own fields: shown after.
  const extra = [...new Set(list.flatMap((r) => Object.keys(r)))].filter((k) => !fixed.includes(k))
  const cols = [...fixed, ...extra]
  const cells = list.map((row) => cols.map((c) => (row[c] === undefined ? '-' : String(row[c]))))
  const widths = cols.map((c, i) =>
    Math.max(c.length, ...cells.map((r) => (r[i] as string).length)),
  )
  const line = (values: string[]) =>
    values.map((v, i) => v.padStart(widths[i] as number)).join('  ')
  console.log(line(cols))
  for (const r of cells) console.log(line(r))
}

function ratio(row: Record<string, unknown>, base: Record<string, unknown>): number {
  return Math.round(((row.steps_per_s as number) / (base.steps_per_s as number)) * 100) / 100
}
