/**
 * Singleton admission under a real kill -9 (issue 15), on Postgres and on MariaDB: runs of
 * `crash` are admitted one per key (four keys); two engine processes drive them; one is
 * SIGKILLed while it holds admitted runs and never comes back. Its runs keep their slots
 * through the kill — starts on their keys meanwhile queue, no waiter of their keys starts —
 * until the other engine takes them over
 * after lease expiry and finishes them; only then are their keys' next runs promoted. Every run
 * completes, each key's runs execute one after another (read from the effect ledger: the
 * execution span of one run of a key never overlaps another's), and the work done is counted.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Engine, silentLogger } from '@cairn/core'
import { crashKey, type CrashInput } from '../crash/crash_workflow.ts'
import { readTimeline, type Timeline } from '../crash/ledger.ts'
import { freeze, killMarked, thaw } from '../crash/process_marks.ts'
import { checkRuns, waitUntilAllFinished } from '../crash/run_checks.ts'
import type { ServerKind } from '../crash/server_sites.ts'
import { kill, pause, spawnEngine, type EngineChild } from '../crash/supervisor.ts'
import { serviceAvailable } from '../helpers/services.ts'
import { leasedTo, openFaultSite, until } from './fault_site.ts'

const KEYS = 4
const RUNS = 24
/** Runs started after the kill, while the killed holders' leases still run. */
const LATE = 8
const LEASE_MS = 3_000
const TARGETS: Record<string, ServerKind> = { Postgres: 'postgres', MariaDB: 'mysql' }

function input(id: number): CrashInput {
  return { id, sleepAfter: [], sleepMs: 0, stepMs: 25 }
}

for (const [label, kind] of Object.entries(TARGETS)) {
  const available = await serviceAvailable(kind)
  void test(
    `one run per key on ${label}: a holder's engine killed -9 keeps the slot until the takeover ends it`,
    { skip: !available && `${kind} unreachable`, timeout: 180_000 },
    () => singletonKill(kind),
  )
}

async function singletonKill(kind: ServerKind): Promise<void> {
  const place = await openFaultSite(kind, 'cairn_singleton')
  const { store, ledger } = place
  // Starts runs with the workflow's admission (the key is computed by the starting engine).
  const client = new Engine({ store, logger: silentLogger, instanceId: 'singleton-client' })
  client.register('crash', 1, async () => 0, {
    singleton: { key: (i: CrashInput) => crashKey(i.id, KEYS) },
  })
  const env = (instance: string) =>
    place.engineEnv(instance, {
      CRASH_LEASE_MS: String(LEASE_MS),
      CRASH_SINGLETON_KEYS: String(KEYS),
    })
  const children: EngineChild[] = []
  try {
    let queuedAtStart = 0
    for (let id = 0; id < RUNS; id++) {
      const started = await client.start('crash', input(id), { runId: `wf-${id}` })
      if (started.queued === true) queuedAtStart++
    }
    assert.equal(queuedAtStart, RUNS - KEYS, 'one run per key admitted, the rest queued')
    const a = await spawnEngine(env('a'))
    children.push(a)
    const b = await spawnEngine(env('b'))
    children.push(b)
    // Kill a while it holds admitted runs, mid-chain. Frozen first, so what it holds cannot
    // change between the read and the kill: a run it finished in that gap freed its key, and
    // the slot check below looked at a key that had moved on (a fresh-clone run saw it).
    const heldByA = await frozenHolding(a, 'a', store, ledger)
    await killMarked(a, ledger)
    const killedAt = Date.now()
    // Starts on the killed holders' keys while their leases run: the slots are taken.
    let lateQueued = 0
    for (let id = RUNS; id < RUNS + LATE; id++) {
      const started = await client.start('crash', input(id), { runId: `wf-${id}` })
      if (started.queued === true) lateQueued++
    }
    assert.equal(lateQueued, LATE, 'starts after the kill wait behind the killed holders')
    // Through the lease, the killed holders keep their slots: their keys promote nobody.
    await pause(LEASE_MS / 2)
    for (const run of heldByA) {
      const key = crashKey(Number(run.id.slice(3)), KEYS)
      const open = await openOfKey(client, key)
      assert.equal(open.admitted.length, 1, `key ${key}: ${open.admitted.join(', ')} admitted`)
      assert.equal(open.admitted[0], run.id, `key ${key}: the killed holder keeps its slot`)
    }
    assert.ok(Date.now() - killedAt < LEASE_MS, 'the slot check ran before the lease expired')
    await waitUntilAllFinished(client, 120_000)
    const timeline = readTimeline(ledger)
    await checkRuns(client, {
      ids: Array.from({ length: RUNS + LATE }, (_, id) => id),
      input,
      execs: timeline.execs,
      lastExecutionRecorded: false,
    })
    const overlaps = keyOverlaps(timeline)
    assert.deepEqual(overlaps, [], 'two runs of one key executed at once')
    const interrupted = timeline.execs.filter((e) => e.pid === a.child.pid && e.end === null)
    console.log(
      `${kind}: ${RUNS + LATE} runs over ${KEYS} keys, ${queuedAtStart} queued at start and ` +
        `${lateQueued} after the kill; ${heldByA.length} ` +
        `held by the killed engine, ${interrupted.length} bodies cut by the kill; ` +
        `${timeline.execs.length} step executions`,
    )
    assert.ok(heldByA.length > 0)
  } finally {
    for (const child of children) await kill(child).catch(() => {})
    await client.close(0)
    await place.drop()
  }
}

/**
 * Freezes `engine` (SIGSTOP) while it (`owner`) holds a run and answers what it holds: thawed and
 * tried again when it turns out to hold none once frozen. A statement it sent just before the
 * stop is given a moment to land before the read.
 */
async function frozenHolding(
  engine: EngineChild,
  owner: string,
  store: Parameters<typeof leasedTo>[0],
  ledger: string,
): Promise<Awaited<ReturnType<typeof leasedTo>>> {
  for (let tries = 0; tries < 20; tries++) {
    await until(
      async () => (await leasedTo(store, owner)).length > 0,
      20_000,
      `${owner} held no run`,
    )
    await freeze(engine, ledger)
    await pause(50)
    const held = await leasedTo(store, owner)
    if (held.length > 0) return held
    thaw(engine, ledger)
  }
  throw new Error(`${owner} held no run whenever it was frozen`)
}

/** A key's open runs as stored: the admitted ones (any open status but queued). */
async function openOfKey(client: Engine, key: string): Promise<{ admitted: string[] }> {
  const page = await client.listRuns({
    status: ['pending', 'running', 'waiting'],
    workflow: 'crash',
    limit: 1000,
  })
  const admitted = page.runs
    .filter((run) => crashKey((run.input as CrashInput).id, KEYS) === key)
    .map((run) => run.id)
  return { admitted }
}

/**
 * Pairs of runs of one key whose execution spans overlap in the ledger: a span runs from the
 * run's first step start to its last step's end (a body cut by a kill ends at the kill).
 */
function keyOverlaps(timeline: Timeline): string[] {
  const spans = new Map<string, { key: string; from: number; to: number }>()
  for (const e of timeline.execs) {
    const key = crashKey(Number(e.runId.slice(3)), KEYS)
    const end = e.end ?? timeline.deaths.get(e.pid) ?? Number.POSITIVE_INFINITY
    const span = spans.get(e.runId) ?? { key, from: e.line, to: end }
    span.from = Math.min(span.from, e.line)
    span.to = Math.max(span.to, end)
    spans.set(e.runId, span)
  }
  const found: string[] = []
  const list = [...spans.entries()]
  for (const [i, [x, sx]] of list.entries())
    for (const [y, sy] of list.slice(i + 1))
      if (sx.key === sy.key && sx.from < sy.to && sy.from < sx.to) found.push(`${x} & ${y}`)
  return found
}
