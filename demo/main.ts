/**
 * `npm start`: durable workflows surviving a crash, on the embedded SQLite store.
 * Starts a batch of order workflows in an engine process that SIGKILLs itself part-way, starts
 * it again, and shows that every workflow finished and no completed step ran twice.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Engine, silentLogger } from '@cairn/core'
import { SqliteStore } from '@cairn/sql/sqlite'
import { STEPS } from './workflow.ts'

const COUNT = 60
const dir = mkdtempSync(join(tmpdir(), 'cairn-demo-'))
const db = join(dir, 'demo.db')
const ledger = join(dir, 'effects.log')
writeFileSync(ledger, '')
const child = fileURLToPath(new URL('./engine_process.ts', import.meta.url))

function runEngine(mode: 'start' | 'resume'): ReturnType<typeof spawnSync> {
  return spawnSync(process.execPath, [child, mode, db, ledger, String(COUNT)], { stdio: 'inherit' })
}

console.log(
  `Cairn demo: ${COUNT} order workflows (${STEPS.length} steps and a durable sleep each) on SQLite at ${db}\n`,
)
const first = runEngine('start')
const engine = new Engine({ store: new SqliteStore({ path: db }), logger: silentLogger })
const afterCrash = await countByStatus(engine)
console.log(
  `1. The engine process died: ${first.signal ?? `exit ${first.status}`} (it killed itself mid-way).`,
)
console.log(`   At that moment: ${describe(afterCrash)}.\n`)

const second = runEngine('resume')
console.log(
  `2. Restarted the engine (same instance id): it exited with ${second.signal ?? second.status}.`,
)
const final = await countByStatus(engine)
console.log(`   Now: ${describe(final)}.\n`)

const report = await verify(engine)
await engine.close()
rmSync(dir, { recursive: true, force: true })
console.log('3. Checked against the effect ledger kept outside the engine:')
console.log(`   - workflows completed:                        ${report.completed} / ${COUNT}`)
console.log(
  `   - step bodies executed:                       ${report.executions} (${report.recorded} results recorded)`,
)
console.log(
  `   - bodies cut short by the crash and re-run:    ${report.interrupted} (their results were never recorded)`,
)
console.log(`   - completed steps that ran again:             ${report.rerunAfterCommit}`)
const ok = report.completed === COUNT && report.rerunAfterCommit === 0 && first.signal === 'SIGKILL'
console.log(
  ok ? '\nEvery workflow finished, and no completed step was re-run. ✔' : '\nSomething is wrong. ✘',
)
process.exitCode = ok ? 0 : 1

async function countByStatus(e: Engine): Promise<Record<string, number>> {
  const counts: Record<string, number> = {}
  let cursor: string | undefined
  do {
    const page = await e.listRuns({ limit: 1000, cursor })
    for (const run of page.runs) counts[run.status] = (counts[run.status] ?? 0) + 1
    cursor = page.nextCursor ?? undefined
  } while (cursor !== undefined)
  return counts
}

function describe(counts: Record<string, number>): string {
  return Object.entries(counts)
    .map(([status, n]) => `${n} ${status}`)
    .join(', ')
}

async function verify(e: Engine) {
  const lines = readFileSync(ledger, 'utf8')
    .trim()
    .split('\n')
    .map((l) => l.split(' ') as [string, string, string])
  let completed = 0
  let recorded = 0
  let rerunAfterCommit = 0
  for (let id = 0; id < COUNT; id++) {
    const run = await e.getRun<unknown, string[]>(`order-${id}`)
    if (run?.status !== 'completed' || run.output === undefined) continue
    completed += 1
    run.output.forEach((receipt, i) => {
      recorded += 1
      const executions = lines.filter(([runId, step]) => runId === run.id && step === STEPS[i])
      // The recorded receipt must come from the LAST execution of that step: nothing ran after it.
      if (executions.at(-1)?.[2] !== receipt) rerunAfterCommit += 1
    })
  }
  return {
    completed,
    executions: lines.length,
    recorded,
    interrupted: lines.length - recorded,
    rerunAfterCommit,
  }
}
