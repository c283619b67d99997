/**
 * The shape of every server-fault test (F4/F5): an engine child process drives a workload on a
 * real server while a client keeps starting runs; a disruption (backends terminated, the server
 * restarted) hits mid-load. Afterwards the child must still be up, every acknowledged start must
 * have become a completed run with one result per step and no body re-run after its checkpoint,
 * and the child must hold no more connections than its pool allows.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Engine, silentLogger, StoreFailureError } from '@cairn/core'
import type { CrashInput } from '../crash/crash_workflow.ts'
import { readLedger } from '../crash/ledger.ts'
import { checkRuns, openRuns, waitUntilAllFinished } from '../crash/run_checks.ts'
import { createSite, type ServerKind, type ServerSite } from '../crash/server_sites.ts'
import { kill, pause, spawnEngine } from '../crash/supervisor.ts'

export interface Disruption {
  kind: ServerKind
  /** Runs once load is flowing. Returns how many faults it caused (backends killed, restarts). */
  disrupt(site: ServerSite): Promise<number>
}

export interface DisruptionReport {
  faults: number
  /** Starts that failed (and were retried until acknowledged) while the server was away. */
  failedStarts: number
  /** Open runs when the disruption began: it hit real work. */
  openAtFault: number
}

const WORKFLOWS = 160
const POOL_MAX = 5
/** Starts trickle in across the disruption, one every START_GAP_MS. */
const START_GAP_MS = 20

export async function survivesDisruption(scenario: Disruption): Promise<DisruptionReport> {
  const site = await createSite(scenario.kind, 'cairn_res')
  const dir = mkdtempSync(join(tmpdir(), 'cairn-res-'))
  const ledger = join(dir, 'ledger.txt')
  const log = join(dir, 'engine.log')
  const trace = join(dir, 'trace.txt')
  for (const file of [ledger, log, trace]) writeFileSync(file, '')
  const client = new Engine({
    store: await site.openStore(),
    logger: silentLogger,
    instanceId: 'client',
  })
  client.register('crash', 1, async () => 0) // the client only starts runs; it never drives
  const child = await spawnEngine({
    ...site.childEnv(),
    CRASH_LEDGER: ledger,
    CRASH_LOG: log,
    CRASH_TRACE: trace,
    CRASH_POOL_MAX: String(POOL_MAX),
  })
  let exited = false
  void child.exited.then(() => (exited = true))
  try {
    const ids = Array.from({ length: WORKFLOWS }, (_, id) => id)
    const firstHalf = ids.slice(0, WORKFLOWS / 2)
    await Promise.all(firstHalf.map((id) => startAcknowledged(client, id)))
    const starter = trickle(client, ids.slice(WORKFLOWS / 2))
    await pause(200)
    const openAtFault = await openRuns(client)
    const faults = await scenario.disrupt(site)
    const failedStarts = await starter
    await waitUntilAllFinished(client, 120_000).catch((error: unknown) => {
      throw new Error(`${String(error)}\n${whatHappened(error, log, trace)}`, { cause: error })
    })
    assert.equal(exited, false, 'the engine process exited')
    await checkRuns(client, { ids, input, execs: readLedger(ledger), lastExecutionRecorded: true })
    await pause(500)
    const connections = await site.childConnections()
    // The pool, plus the LISTEN connection on Postgres.
    const allowed = POOL_MAX + (scenario.kind === 'postgres' ? 1 : 0)
    assert.ok(connections <= allowed, `${connections} connections after the disruption`)
    return { faults, failedStarts, openAtFault }
  } finally {
    await kill(child)
    await client.close(0)
    await site.drop()
    rmSync(dir, { recursive: true, force: true })
  }
}

// About half a second of steps per run, some with a durable sleep: the load outlasts the fault.
function input(id: number): CrashInput {
  return { id, sleepAfter: id % 3 === 0 ? [4] : [], sleepMs: 200, stepMs: 30 + (id % 4) * 10 }
}

/** Starts `ids` one every START_GAP_MS, each retried until acknowledged; counts the failures. */
async function trickle(client: Engine, ids: readonly number[]): Promise<number> {
  let failures = 0
  const lanes = ids.map(async (id, i) => {
    await pause(i * START_GAP_MS)
    failures += await startAcknowledged(client, id)
  })
  await Promise.all(lanes)
  return failures
}

/**
 * A start that fails on a store outage is safe to retry (idempotent by run id): retry it until
 * the store acknowledges it, as a careful caller would. Returns the number of failed attempts.
 */
async function startAcknowledged(client: Engine, id: number): Promise<number> {
  const deadline = Date.now() + 60_000
  for (let failures = 0; ; failures++) {
    try {
      await client.start('crash', input(id), { runId: `wf-${id}` })
      return failures
    } catch (error) {
      if (!StoreFailureError.is(error) || Date.now() > deadline) throw error
      await pause(100)
    }
  }
}

/** For a stuck run: the engine's warnings and the run's last lifecycle events. */
function whatHappened(error: unknown, log: string, trace: string): string {
  const runId = /"id":"([^"]+)"/.exec(String(error))?.[1] ?? '?'
  const events = readFileSync(trace, 'utf8')
    .split('\n')
    .filter((line) => line.includes(` ${runId} `))
  const warnings = readFileSync(log, 'utf8').split('\n').filter(Boolean)
  return [
    `last events of ${runId}:`,
    ...events.slice(-8),
    `engine warnings (${warnings.length}, last 15):`,
    ...warnings.slice(-15),
  ].join('\n')
}
