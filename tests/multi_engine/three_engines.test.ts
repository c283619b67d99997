/**
 * Several engines on one server database (F2/F3), on Postgres and on MariaDB: three engine processes drive a shared workload
 * while one is SIGKILLed and restarted under its instance id (it reclaims its runs at once),
 * another is SIGKILLed for good (the others take its runs over after lease expiry), and a third
 * is SIGSTOPped past its lease and continued (its late writes change nothing). A client process
 * keeps starting workflows; an effect ledger outside the engines records every step body.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Engine } from '@cairn/core'
import type { RunRecord, StateStore } from '@cairn/core/contracts'
import type { CrashInput } from '../crash/crash_workflow.ts'
import { readTimeline } from '../crash/ledger.ts'
import { checkNoDoubleStarts } from '../crash/ledger_checks.ts'
import { freeze, killMarked, thaw } from '../crash/process_marks.ts'
import { kill, pause, spawnEngine, type EngineChild } from '../crash/supervisor.ts'
import { checkRuns, waitUntilAllFinished } from '../crash/run_checks.ts'
import type { ServerKind } from '../crash/server_sites.ts'
import { serviceAvailable } from '../helpers/services.ts'
import { leasedTo, openFaultSite, takenOver, until } from './fault_site.ts'

const WAVE = 40
const WORKFLOWS = WAVE * 4
// Long enough that a restarted engine process (node start-up, store open) reclaims its runs
// within it even on a loaded machine: the test checks the reclaim beat the lease.
const LEASE_MS = 6_000

const TARGETS: Record<string, ServerKind> = { Postgres: 'postgres', MariaDB: 'mysql' }

for (const [label, kind] of Object.entries(TARGETS)) {
  const available = await serviceAvailable(kind)
  void test(
    `three engines on one ${label}: kill + restart, kill for good, pause past the lease`,
    { skip: !available && `${kind} unreachable`, timeout: 240_000 },
    () => threeEngines(kind),
  )
}

async function threeEngines(kind: ServerKind): Promise<void> {
  const place = await openFaultSite(kind, 'cairn_multi')
  const { store, client, ledger } = place
  const env = (instance: string) =>
    place.engineEnv(instance, {
      CRASH_LEASE_MS: String(LEASE_MS),
      // No engine can take a whole wave by itself: every engine holds runs when a fault hits it.
      CRASH_CONCURRENCY: '15',
    })
  const children: EngineChild[] = []
  const spawn = async (instance: string) => {
    const child = await spawnEngine(env(instance))
    children.push(child)
    return child
  }
  try {
    await startWave(client, 0)
    const a = await spawn('a')
    let b = await spawn('b')
    const c = await spawn('c')
    await pause(500)

    // B dies and comes back under the same id: it takes its runs back before their leases expire.
    await startWave(client, 1)
    await pause(300)
    const heldByB = await leasedTo(store, 'b')
    await killMarked(b, ledger)
    const restartedAt = Date.now()
    b = await spawn('b')
    // The restarted b reclaims at start-up; on a loaded machine that can take a moment, and a
    // run b put to sleep just before the kill is only claimed again when its timer fires. So
    // poll — but only while the old leases still hold, or a takeover would pass for a reclaim.
    const reclaimDeadline = restartedAt + LEASE_MS - 1_000
    let unreclaimed = heldByB
    while (unreclaimed.length > 0 && Date.now() < reclaimDeadline) {
      unreclaimed = await notReclaimed(store, unreclaimed)
      if (unreclaimed.length > 0) await pause(100)
    }
    assert.deepEqual(
      unreclaimed.map((run) => run.id),
      [],
      'runs not reclaimed by the restarted b',
    )
    assert.ok(
      Date.now() - restartedAt < LEASE_MS,
      'the reclaim check ran before the leases expired',
    )

    // C dies for good: A and B finish its runs after its leases expire.
    await startWave(client, 2)
    await pause(300)
    const heldByC = await leasedTo(store, 'c')
    await killMarked(c, ledger)
    // Not before the leases expire; then at the others' next polls, however loaded the machine.
    await pause(LEASE_MS)
    await until(
      async () => (await stillHeldBy(store, heldByC, 'c')).length === 0,
      30_000,
      'runs still held by dead c',
    )

    // A is paused past its lease, then continued: whatever it writes late must change nothing.
    await startWave(client, 3)
    await pause(300)
    await freeze(a, ledger)
    const heldByA = await leasedTo(store, 'a') // frozen: it holds exactly these
    // Past its lease, and until another engine has taken one of its runs over: only then must
    // A's late writes be fenced (a run nobody took is still A's to finish).
    await pause(LEASE_MS)
    // Frozen mid-transaction, A may hold row locks on its runs, which the others' claims skip
    // until the server ends A's idle transaction (the stores' idle-in-transaction timeout, 30 s).
    await until(
      async () => (await takenOver(store, heldByA)).length > 0,
      70_000,
      'no engine took over a run of the paused one',
    )
    const before = await recordedCheckpoints(store)
    thaw(a, ledger)

    await waitUntilAllFinished(client, 120_000)
    const after = await recordedCheckpoints(store)
    for (const [key, output] of before) {
      assert.equal(after.get(key), output, `recorded result ${key} changed`)
    }
    const timeline = readTimeline(ledger)
    await checkRuns(client, {
      ids: Array.from({ length: WORKFLOWS }, (_, id) => id),
      input,
      execs: timeline.execs,
      lastExecutionRecorded: false,
    })
    checkNoDoubleStarts(`three engines on ${kind}`, timeline)
    // The faults hit real work: each engine held runs when it was killed or paused, and
    // those runs completed anyway (taken back, or taken over).
    assert.ok(heldByB.length > 0, 'b held no run when it was killed')
    assert.ok(heldByC.length > 0, 'c held no run when it was killed')
    assert.ok(heldByA.length > 0, 'a held no run when it was paused')
    // After SIGCONT, a learned from its fenced writes or renewals that its leases were gone.
    assert.ok(place.lostLeases('a').length > 0, 'the paused engine never noticed it lost leases')
  } finally {
    for (const child of children) await kill(child).catch(() => {})
    await place.drop()
  }
}

// Steps of 30–70 ms: a run executes for about half a second, so faults land on running work.
function input(id: number): CrashInput {
  return {
    id,
    sleepAfter: id % 2 === 0 ? [3] : [],
    sleepMs: 300 + (id % 3) * 200,
    stepMs: 30 + (id % 5) * 10,
  }
}

/** Starts wave `wave` of WAVE workflows (ids wave×WAVE …). */
async function startWave(client: Engine, wave: number): Promise<void> {
  const ids = Array.from({ length: WAVE }, (_, i) => wave * WAVE + i)
  await Promise.all(ids.map((id) => client.start('crash', input(id), { runId: `wf-${id}` })))
}

/** The runs of `held` that are neither completed nor re-leased since `held` was read. */
async function notReclaimed(store: StateStore, held: readonly RunInfoRow[]): Promise<RunInfoRow[]> {
  const left: RunInfoRow[] = []
  for (const run of held) {
    const now = await store.getRun(run.id)
    if (now === null || (now.status !== 'completed' && now.leaseEpoch <= run.leaseEpoch)) {
      left.push(run)
    }
  }
  return left
}

/** The runs of `held` still running under `owner`'s lease. */
async function stillHeldBy(
  store: StateStore,
  held: readonly RunInfoRow[],
  owner: string,
): Promise<RunInfoRow[]> {
  const left: RunInfoRow[] = []
  for (const run of held) {
    const now = await store.getRun(run.id)
    if (now === null || (now.status === 'running' && now.leaseOwner === owner)) left.push(run)
  }
  return left
}

type RunInfoRow = RunRecord

async function recordedCheckpoints(store: StateStore): Promise<Map<string, string | null>> {
  const map = new Map<string, string | null>()
  for (let id = 0; id < WORKFLOWS; id++) {
    for (const r of await store.loadCheckpoints(`wf-${id}`)) {
      if (r.status === 'completed' || r.status === 'failed') map.set(`wf-${id}#${r.seq}`, r.output)
    }
  }
  return map
}
