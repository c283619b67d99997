/**
 * F1/F2 on SQLite with real processes: an engine child is SIGKILLed at random moments and at
 * failpoints P3–P7 (P7: right after suspending a run on a timer, then kept down past it), and restarted by a supervisor, while a
 * client process keeps starting workflows. Then every invariant is checked against the store
 * and an effect ledger kept outside the engine. CAIRN_CRASH_LONG=1 runs the long variant.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { Engine, silentLogger } from '@cairn/core'
import { SqliteStore } from '@cairn/sql/sqlite'
import { STEPS, type CrashInput } from './crash_workflow.ts'
import { readLedger } from './ledger.ts'
import { lateReruns } from './ledger_checks.ts'
import { assertIntegrityOk } from './sqlite_integrity.ts'
import { checkRuns, openRuns, waitUntilAllFinished } from './run_checks.ts'
import { kill, pause, spawnEngine } from './supervisor.ts'

const LONG = process.env.CAIRN_CRASH_LONG === '1'
const WORKFLOWS = LONG ? 2_000 : 200
const RANDOM_KILLS = LONG ? 300 : 30
const FAILPOINTS: Record<string, string> = {
  P3: 'P3=0.3',
  P4: 'P4=0.03',
  P5: 'P5=0.03',
  P6: 'P6=0.03',
  P7: 'P7=0.2', // dies right after suspending a run on a timer; then stays down past it
}
// Workflows started during the random-kill phase; the rest feed the failpoint rounds.
const RANDOM_PHASE_WORKFLOWS = Math.floor(WORKFLOWS * 0.6)
const FAILPOINT_ROUNDS = LONG ? 6 : 2

void test(
  `crash test: ${WORKFLOWS} workflows, ${RANDOM_KILLS} random SIGKILLs + failpoints P3–P7`,
  { timeout: LONG ? 3_600_000 : 240_000 },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cairn-crash-'))
    const db = join(dir, 'crash.db')
    const ledger = join(dir, 'ledger.txt')
    const fired = join(dir, 'failpoints.txt')
    writeFileSync(ledger, '')
    writeFileSync(fired, '')
    const env = { CRASH_DB: db, CRASH_LEDGER: ledger, CAIRN_FAILPOINT_LOG: fired }
    const client = new Engine({
      store: new SqliteStore({ path: db }),
      logger: silentLogger,
      instanceId: 'client',
    })
    client.register('crash', 1, async () => 0) // the client only starts runs; it never drives
    try {
      let started = 0
      const signals = new SignalSender(client)
      const startBatch = async (n: number) => {
        const batch = Array.from({ length: Math.min(n, WORKFLOWS - started) }, () => started++)
        await Promise.all(
          batch.map((id) => client.start('crash', crashInput(id), { runId: `wf-${id}` })),
        )
        // Half of the signalled runs get theirs at once, before they reach the wait.
        await signals.send(batch.filter((id) => id % 4 === 0))
      }
      let randomKills = 0
      let killedWithWorkInFlight = 0
      for (; randomKills < RANDOM_KILLS; randomKills++) {
        await startBatch(Math.ceil(RANDOM_PHASE_WORKFLOWS / RANDOM_KILLS))
        const engine = await spawnEngine(env)
        await pause(80 + Math.floor(Math.random() * 400))
        if ((await openRuns(client)) > 0) killedWithWorkInFlight++
        await kill(engine)
        if (randomKills % 10 === 9) await pause(700) // every engine down past the sleeps' due times (P7)
      }
      const failpointDeaths = await failpointRounds(env, startBatch)
      await startBatch(WORKFLOWS)
      // The other half get theirs at the end: most are waiting for them by now.
      await signals.send(
        Array.from({ length: WORKFLOWS }, (_, id) => id).filter((id) => id % 4 === 2),
      )
      const final = await spawnEngine(env)
      await waitUntilAllFinished(client, LONG ? 1_800_000 : 120_000)
      await kill(final)

      const execs = readLedger(ledger)
      const firedNames = readFileSync(fired, 'utf8').split('\n').filter(Boolean)
      await checkInvariants(client, execs, db)
      // The test must have done real work, and the kills must have hit it.
      assert.equal(randomKills, RANDOM_KILLS)
      assert.ok(
        killedWithWorkInFlight >= RANDOM_KILLS * 0.8,
        `only ${killedWithWorkInFlight} kills hit open runs`,
      )
      assert.ok(execs.length >= WORKFLOWS * STEPS, `ledger has ${execs.length} executions`)
      for (const point of Object.keys(FAILPOINTS)) {
        assert.ok(
          firedNames.includes(point),
          `failpoint ${point} never fired (deaths: ${JSON.stringify(failpointDeaths)})`,
        )
      }
      // Every signal was acknowledged once and its resend recognised as a duplicate; the
      // workflows themselves fail unless each arrived exactly once, in order (checkRuns).
      assert.equal(signals.accepted, signals.expected, 'signals acknowledged')
      assert.equal(signals.duplicates, signals.expected, 'resends recognised')
      const reRuns = execs.length - WORKFLOWS * STEPS
      assert.ok(
        reRuns > 0,
        'some step bodies were interrupted and ran again (at-least-once side effects)',
      )
    } finally {
      await client.close(0)
      rmSync(dir, { recursive: true, force: true })
    }
  },
)

function crashInput(id: number): CrashInput {
  const sleepAfter = id % 3 === 0 ? [] : id % 3 === 1 ? [2] : [1, 6]
  const signals = id % 2 === 0 ? SIGNALS_PER_RUN : 0
  const children = id % 5 === 0 ? CHILDREN_PER_RUN : 0
  return { id, sleepAfter, sleepMs: 150 + (id % 5) * 100, stepMs: 2 + (id % 4), signals, children }
}

const SIGNALS_PER_RUN = 2
const CHILDREN_PER_RUN = 3

/** Sends each signalled run its signals 0, 1, … with signal ids, each twice (a client retry). */
class SignalSender {
  accepted = 0
  duplicates = 0
  expected = 0
  readonly #client: Engine

  constructor(client: Engine) {
    this.#client = client
  }

  async send(ids: readonly number[]): Promise<void> {
    for (const id of ids) {
      for (let n = 0; n < SIGNALS_PER_RUN; n++) {
        this.expected++
        for (let attempt = 0; attempt < 2; attempt++) {
          const token = { runId: `wf-${id}`, name: 'go' }
          const receipt = await this.#client.signal(token, n, { signalId: `wf-${id}-go-${n}` })
          if (receipt.duplicate) this.duplicates++
          else this.accepted++
        }
      }
    }
  }
}

async function failpointRounds(
  env: Record<string, string>,
  startBatch: (n: number) => Promise<void>,
): Promise<Record<string, number>> {
  const deaths: Record<string, number> = {}
  const perRound = Math.ceil(
    (WORKFLOWS - RANDOM_PHASE_WORKFLOWS) / (FAILPOINT_ROUNDS * Object.keys(FAILPOINTS).length),
  )
  for (let round = 0; round < FAILPOINT_ROUNDS; round++) {
    for (const [point, spec] of Object.entries(FAILPOINTS)) {
      await startBatch(perRound) // fresh work, so the crash point is reached
      const engine = await spawnEngine({ ...env, CAIRN_FAILPOINTS: spec })
      const outcome = await Promise.race([engine.exited, pause(4_000).then(() => null)])
      if (outcome === null) await kill(engine)
      else deaths[point] = (deaths[point] ?? 0) + 1
      if (point === 'P7') await pause(700) // every timer of the runs it suspended falls due while no engine runs
    }
  }
  return deaths
}

async function checkInvariants(
  client: Engine,
  execs: ReturnType<typeof readLedger>,
  dbPath: string,
): Promise<void> {
  const ids = Array.from({ length: WORKFLOWS }, (_, id) => id)
  await checkRuns(client, { ids, input: crashInput, execs, lastExecutionRecorded: true })
  const late = lateReruns(execs)
  assert.deepEqual(late.slice(0, 5), [], `${late.length} steps started after their successor`)
  let sleeps = 0
  let firedAfterDowntime = 0
  for (const id of ids) {
    const runId = `wf-${id}`
    for (const r of await client.store.loadCheckpoints(runId)) {
      if (r.kind !== 'sleep') continue
      sleeps++
      assert.equal(r.status, 'completed', `${runId}#${r.seq} ${r.status}`)
      assert.ok(r.updatedAt >= (r.wakeAt as number), `${runId}#${r.seq}: timer fired early`)
      if (r.updatedAt - (r.wakeAt as number) >= 300) firedAfterDowntime++
    }
  }
  assert.ok(sleeps > 0)
  // P7: some timers fell due while no engine ran, and fired once after the restart.
  assert.ok(firedAfterDowntime > 0, 'no timer was due during a downtime')
  assertIntegrityOk(dbPath)
}
