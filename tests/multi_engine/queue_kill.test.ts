/**
 * A named queue under a real kill -9 (issue 15), on Postgres and on MariaDB: RUNS runs of
 * `queued` each call a step three times on the queue `carrier` (concurrency 3); two engine
 * processes drive them; one is SIGKILLed while it holds slots and never comes back. From the
 * effect ledger the calls write (every process's, in one file, in order): never more than 3
 * calls in flight at once — a killed process's open calls count until its death — and through
 * the lease the killed holders keep their slots (queueStats: 3 in use). Every run completes;
 * the work done is counted: each call ran, and ran again (once) only if the killed engine ran
 * it first — cut by the kill, or returned before its outcome was committed (at least once per
 * attempt, as every step). Run again with the queue's slot leases: the killed engine's lease
 * keeps its slots counted until it expires; the same ledger checks hold.
 */
import assert from 'node:assert/strict'
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { test } from 'node:test'
import { Engine, silentLogger } from '@cairn/core'
import {
  mostInFlight,
  QUEUED_CALLS,
  readQueueSpans,
  registerQueuedWorkflow,
  type QueuedInput,
} from '../crash/queue_workflow.ts'
import type { ServerKind } from '../crash/server_sites.ts'
import { kill, pause, spawnEngine, type EngineChild } from '../crash/supervisor.ts'
import { serviceAvailable } from '../helpers/services.ts'
import { leasedTo, openFaultSite, until } from './fault_site.ts'

const RUNS = 16
const CONCURRENCY = 3
const LEASE_MS = 3_000
const TARGETS: Record<string, ServerKind> = { Postgres: 'postgres', MariaDB: 'mysql' }

for (const [label, kind] of Object.entries(TARGETS)) {
  const available = await serviceAvailable(kind)
  void test(
    `a queue of concurrency ${CONCURRENCY} on ${label}: a holder's engine killed -9 keeps its slots until the takeover`,
    { skip: !available && `${kind} unreachable`, timeout: 180_000 },
    () => queueKill(kind, false),
  )
  void test(
    `a queue of concurrency ${CONCURRENCY} with slot leases on ${label}: a killed engine's lease keeps its slots until it expires`,
    { skip: !available && `${kind} unreachable`, timeout: 180_000 },
    () => queueKill(kind, true),
  )
}

async function queueKill(kind: ServerKind, leases: boolean): Promise<void> {
  const place = await openFaultSite(kind, leases ? 'cairn_queue_lease' : 'cairn_queue')
  const ledger = join(tmpdir(), `cairn-queue-ledger-${process.pid}-${kind}.txt`)
  writeFileSync(ledger, '')
  const client = new Engine({ store: place.store, logger: silentLogger, instanceId: 'q-client' })
  registerQueuedWorkflow(client, ledger, CONCURRENCY, leases)
  const env = (instance: string) =>
    place.engineEnv(instance, {
      CRASH_LEASE_MS: String(LEASE_MS),
      CRASH_QUEUE_LEDGER: ledger,
      CRASH_QUEUE_CONCURRENCY: String(CONCURRENCY),
      CRASH_QUEUE_LEASES: leases ? '1' : '0',
      // With leases, attempts wait in memory up to holdTimersUpToMs before the durable line:
      // long enough here (16 runs on 3 slots of 150 ms calls) to be served from the lease.
      ...(leases ? { CRASH_HOLD_MS: '1400' } : {}),
    })
  const children: EngineChild[] = []
  try {
    for (let id = 0; id < RUNS; id++) {
      const input: QueuedInput = { id, stepMs: 150 }
      await client.start('queued', input, { runId: `q-${id}` })
    }
    const a = await spawnEngine(env('a'))
    children.push(a)
    const b = await spawnEngine(env('b'))
    children.push(b)
    // Kill a while one of its calls is in flight (it holds a slot).
    const pidA = a.child.pid as number
    await until(async () => openCalls(ledger, pidA) > 0, 20_000, 'a never ran a call')
    if (leases)
      await until(
        async () => ((await client.store.queueStats(['carrier'], Date.now()))[0]?.leased ?? 0) > 0,
        20_000,
        'the engines never leased a slot',
      )
    const heldByA = (await leasedTo(place.store, 'a')).length
    const openAtKill = openCalls(ledger, pidA)
    await kill(a)
    appendFileSync(ledger, `qdead ${pidA}\n`)
    const killedAt = Date.now()
    await pause(LEASE_MS / 3)
    const [during] = await client.store.queueStats(['carrier'], Date.now())
    if (leases) {
      // The dead engine's lease still counts its slots (at least its open calls'): the store
      // holds them until the lease expires, whatever the other engine asks.
      // (Its open calls hold leased slots or, once durable waiters made it yield, granted items.)
      const inUse = (during?.granted ?? 0) + (during?.leased ?? 0)
      assert.ok(inUse >= openAtKill && inUse <= CONCURRENCY, `slots counted: ${inUse}`)
      console.log(`at the kill: ${openAtKill} open calls; then ${JSON.stringify(during)}`)
    } else assert.equal(during?.granted, CONCURRENCY, 'the killed holders keep their slots')
    assert.ok(Date.now() - killedAt < LEASE_MS, 'the slot check ran before the lease expired')
    for (let id = 0; id < RUNS; id++) {
      const outcome = await client.waitForRun(`q-${id}`, { timeoutMs: 120_000 })
      assert.deepEqual(outcome.status, 'completed', `q-${id}`)
    }
    const spans = readQueueSpans(readFileSync(ledger, 'utf8'))
    assert.equal(mostInFlight(spans), CONCURRENCY, 'never more calls at once than the queue allows')
    const cut = spans.filter((s) => s.pid === pidA && s.to === deathLine(ledger, pidA))
    const byCall = Map.groupBy(spans, (s) => `${s.runId} ${s.call}`)
    assert.equal(byCall.size, RUNS * QUEUED_CALLS, 'every call ran')
    // At least once: a call ran again only if the killed engine ran it first (cut by the kill,
    // or returned before its outcome was committed), and then only once more.
    for (const [call, runs] of byCall) {
      if (runs.length === 1) continue
      assert.equal(runs.length, 2, `${call} ran ${runs.length} times`)
      assert.equal(runs[0]?.pid, pidA, `${call} ran again though the killed engine never ran it`)
    }
    // Every slot comes back: items at the runs' ends, the live engine's lease when its demand
    // is gone (about 100 ms), the killed one's when it expires.
    await until(
      async () => {
        const [after] = await client.store.queueStats(['carrier'], Date.now())
        return after?.granted === 0 && after.waiting === 0 && after.leased === 0
      },
      LEASE_MS * 3,
      'every slot came back',
    )
    console.log(
      `${kind}${leases ? ' (slot leases)' : ''}: ${RUNS} runs × ${QUEUED_CALLS} calls on a queue of ${CONCURRENCY}; ${heldByA} ` +
        `runs held by the killed engine, ${cut.length} calls cut by the kill, ` +
        `${spans.length} executions`,
    )
  } finally {
    for (const child of children) await kill(child).catch(() => {})
    await client.close(0)
    await place.drop()
  }
}

/** The ledger line of `pid`'s death mark. */
function deathLine(ledger: string, pid: number): number {
  return readFileSync(ledger, 'utf8').split('\n').indexOf(`qdead ${pid}`)
}

/** Calls of process `pid` started and not yet returned. */
function openCalls(ledger: string, pid: number): number {
  const spans = readQueueSpans(readFileSync(ledger, 'utf8'))
  return spans.filter((s) => s.pid === pid && s.to === Infinity).length
}
