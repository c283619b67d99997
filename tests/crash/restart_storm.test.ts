/**
 * The restart storm (F2, as a user would write it): one engine process, restarted again and
 * again under the same instance id, each time resubmitting every run it owns and re-sending
 * their signals — some starts before `startDriving()`, racing the reclaim of the runs the
 * killed process held, the rest after — while the test SIGKILLs it at random moments,
 * the start-up window included. Steps are local and registered, with a sleep (held or
 * durable) and a signal wait mid-chain. Checked from an effect ledger the step bodies write
 * outside the engine: no step starts again once its successor has started (a committed step
 * never runs again), and the usual run checks. On SQLite, Postgres and MariaDB;
 * CAIRN_STORM_LONG=1 runs the long variant.
 */
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { Engine, silentLogger, type StateStore } from '@cairn/core'
import { SqliteStore } from '@cairn/sql/sqlite'
import { serviceAvailable } from '../helpers/services.ts'
import { readLedger } from './ledger.ts'
import { openRuns, waitUntilAllFinished } from './run_checks.ts'
import { createSite, type ServerKind } from './server_sites.ts'
import { lateReruns } from './ledger_checks.ts'
import { assertIntegrityOk } from './sqlite_integrity.ts'
import { checkStormRuns } from './storm_checks.ts'
import { STORM_STEPS } from './storm_workflow.ts'
import { pause } from './supervisor.ts'

const LONG = process.env.CAIRN_STORM_LONG === '1'
const RUNS = LONG ? 3_000 : 1_000
const KILLS = LONG ? 40 : 10
const script = fileURLToPath(new URL('./storm_process.ts', import.meta.url))

type Target = 'sqlite' | ServerKind

for (const target of ['sqlite', 'postgres', 'mysql'] as const) {
  const available = target === 'sqlite' || (await serviceAvailable(target))
  void test(
    `restart storm on ${target}: ${RUNS} runs resubmitted by every restart, ${KILLS} SIGKILLs`,
    { skip: !available && `${target} unreachable`, timeout: LONG ? 3_600_000 : 300_000 },
    () => storm(target),
  )
}

async function storm(target: Target): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-storm-'))
  const ledger = join(dir, 'ledger.txt')
  const log = join(dir, 'engine.log')
  writeFileSync(ledger, '')
  writeFileSync(log, '')
  const place = await openPlace(target, dir)
  const env = { ...place.childEnv, STORM_RUNS: String(RUNS), STORM_LEDGER: ledger, CRASH_LOG: log }
  const client = new Engine({ store: place.store, logger: silentLogger, instanceId: 'client' })
  client.register('storm', 1, async () => 0) // reads the store; never drives
  const children = new Set<StormProcess>()
  const start = () => {
    const child = startProcess(env)
    children.add(child)
    return child
  }
  try {
    const kills: Kill[] = []
    for (let round = 0; round < KILLS; round++) kills.push(await killRound(round, start, client))
    const final = start()
    await final.reached('signalled', 120_000)
    await waitUntilAllFinished(client, LONG ? 1_800_000 : 180_000)
    await final.kill()
    assert.equal((await client.listRuns({ limit: 1000 })).runs.length, Math.min(RUNS, 1000))

    const execs = readLedger(ledger)
    const late = lateReruns(execs)
    const reruns = execs.length - RUNS * STORM_STEPS
    console.log(
      `storm ${target}: ${execs.length} step executions, ${reruns} re-runs of interrupted bodies, ` +
        `${late.length} starts after a successor; kills by phase ${JSON.stringify(tally(kills))}`,
    )
    assert.deepEqual(late.slice(0, 5), [], `${late.length} steps started after their successor`)
    await checkStormRuns(client, RUNS, execs)
    checkKillsHitWork(kills)
    assert.ok(reruns > 0, 'some bodies were cut short by a kill and ran again')
    if (target === 'sqlite') assertIntegrityOk(join(dir, 'storm.db'))
  } catch (error) {
    // Whatever failed (a run stuck, say), say what the ledger shows about the promise too.
    const late = lateReruns(readLedger(ledger)).length
    const tail = readFileSync(log, 'utf8').split('\n').slice(-20).join('\n')
    const message = `${String(error)}\n${late} steps started after their successor\nengine log (last lines):\n${tail}`
    throw new Error(message, { cause: error })
  } finally {
    for (const child of children) await child.kill()
    await client.close(0)
    await place.drop()
    rmSync(dir, { recursive: true, force: true })
  }
}

interface Place {
  store: StateStore
  childEnv: Record<string, string>
  drop(): Promise<void>
}

async function openPlace(target: Target, dir: string): Promise<Place> {
  if (target === 'sqlite') {
    const path = join(dir, 'storm.db')
    return { store: new SqliteStore({ path }), childEnv: { CRASH_DB: path }, drop: async () => {} }
  }
  const site = await createSite(target, 'cairn_storm')
  return { store: await site.openStore(4), childEnv: site.childEnv(), drop: () => site.drop() }
}

/** Where a kill landed: the last phase the process had printed, and whether runs were open. */
interface Kill {
  phase: string
  openRuns: boolean
}

/**
 * One process, killed: in its start-up (round 0, 4, …), just after it booted — its first
 * resubmits racing the reclaim — (1, 5, …), or while it works (the rest).
 */
async function killRound(round: number, start: () => StormProcess, client: Engine): Promise<Kill> {
  const child = start()
  const kind = round % 4
  if (kind === 0) await pause(Math.random() * 400)
  else if (kind === 1) {
    await child.reached('booted', 30_000)
    await pause(Math.random() * 40)
  } else {
    await child.reached('driving', 30_000)
    await pause(300 + Math.random() * 1_200)
  }
  const open = (await openRuns(client)) > 0
  const phase = child.phase
  await child.kill()
  return { phase, openRuns: open }
}

function checkKillsHitWork(kills: readonly Kill[]): void {
  const early = kills.filter((k) => k.phase === 'none' || k.phase === 'booted')
  assert.ok(early.length > 0, 'no kill landed in the start-up window')
  const working = kills.filter((k) => k.phase !== 'none' && k.phase !== 'booted')
  const hit = working.filter((k) => k.openRuns)
  assert.ok(
    hit.length >= working.length * 0.8,
    `only ${hit.length} of ${working.length} kills hit open runs`,
  )
}

function tally(kills: readonly Kill[]): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const k of kills) counts[k.phase] = (counts[k.phase] ?? 0) + 1
  return counts
}

interface StormProcess {
  /** The last phase printed (`none` before the first). */
  readonly phase: string
  reached(phase: string, timeoutMs: number): Promise<void>
  kill(): Promise<void>
}

function startProcess(env: Record<string, string>): StormProcess {
  const child: ChildProcess = spawn(process.execPath, [script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const seen: string[] = []
  const listeners = new Set<() => void>()
  let buffer = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    buffer += chunk.toString()
    const lines = buffer.split('\n')
    buffer = lines.pop() ?? ''
    seen.push(...lines.filter(Boolean))
    for (const listener of listeners) listener()
  })
  return {
    get phase() {
      return seen.at(-1) ?? 'none'
    },
    reached: (phase, timeoutMs) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!seen.includes(phase)) return
          listeners.delete(check)
          clearTimeout(timer)
          resolve()
        }
        const timer = setTimeout(() => {
          listeners.delete(check)
          reject(new Error(`storm process did not reach ${phase} in ${timeoutMs} ms`))
        }, timeoutMs)
        listeners.add(check)
        check()
        void exited.then(() => {
          if (!seen.includes(phase)) reject(new Error(`storm process exited before ${phase}`))
        })
      }),
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
      await exited
    },
  }
}
