/**
 * A rate-limited queue held across three engine processes (issue 15), on Postgres and on
 * MariaDB: RUNS runs of `metered` each call a step twice on the queue `metered` (rate
 * RATE.limit per RATE.periodMs, slots plenty), driven by three engine processes at once. From
 * the ledger of call starts the handlers write (every process's, wall-clock times on one
 * machine): every call ran exactly once, the processes shared the work, and no interval holds
 * more than RATE.limit starts — counted over intervals of RATE.periodMs less DELIVERY_MS: the
 * store bounds grants (at most `limit` in any period, exactly), and a call starts after its
 * grant by the time a grant takes to reach its run (a claim and a replay), so starts may sit
 * up to that much closer than their grants. The whole work is also not throttled more than
 * the rate asks: it takes no longer than the periods it needs plus slack.
 */
import assert from 'node:assert/strict'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { test } from 'node:test'
import { Engine, silentLogger } from '@cairn/core'
import {
  mostInWindow,
  RATE,
  RATED_CALLS,
  readRatedStarts,
  registerRatedWorkflow,
} from '../crash/rate_workflow.ts'
import type { ServerKind } from '../crash/server_sites.ts'
import { kill, spawnEngine, type EngineChild } from '../crash/supervisor.ts'
import { serviceAvailable } from '../helpers/services.ts'
import { openFaultSite } from './fault_site.ts'

const RUNS = 12
const ENGINES = 3
/** How much closer than their grants two starts may be (a grant reaching its run). */
const DELIVERY_MS = 500
const TARGETS: Record<string, ServerKind> = { Postgres: 'postgres', MariaDB: 'mysql' }

for (const [label, kind] of Object.entries(TARGETS)) {
  const available = await serviceAvailable(kind)
  void test(
    `a rate of ${RATE.limit} per ${RATE.periodMs} ms on ${label} holds across ${ENGINES} engine processes`,
    { skip: !available && `${kind} unreachable`, timeout: 180_000 },
    () => rateAcrossProcesses(kind),
  )
}

async function rateAcrossProcesses(kind: ServerKind): Promise<void> {
  const place = await openFaultSite(kind, 'cairn_rate')
  const ledger = join(tmpdir(), `cairn-rate-ledger-${process.pid}-${kind}.txt`)
  writeFileSync(ledger, '')
  const client = new Engine({ store: place.store, logger: silentLogger, instanceId: 'r-client' })
  registerRatedWorkflow(client, ledger)
  const children: EngineChild[] = []
  try {
    for (let id = 0; id < RUNS; id++) await client.start('metered', null, { runId: `m-${id}` })
    for (let i = 0; i < ENGINES; i++)
      // Two runs at once per engine: a period's four grants need two engines to run them.
      children.push(
        await spawnEngine(
          place.engineEnv(`e${i}`, { CRASH_RATE_LEDGER: ledger, CRASH_CONCURRENCY: '2' }),
        ),
      )
    for (let id = 0; id < RUNS; id++) {
      const outcome = await client.waitForRun(`m-${id}`, { timeoutMs: 120_000 })
      assert.equal(outcome.status, 'completed', `m-${id}`)
    }
    const starts = readRatedStarts(readFileSync(ledger, 'utf8'))
    const calls = new Set(starts.map((s) => `${s.runId} ${s.call}`))
    assert.equal(calls.size, RUNS * RATED_CALLS, 'every call ran')
    assert.equal(starts.length, RUNS * RATED_CALLS, 'each exactly once (nobody died)')
    const pids = new Set(starts.map((s) => s.pid))
    assert.ok(pids.size >= 2, `the engines shared the calls (${pids.size} ran any)`)
    const closest = mostInWindow(starts, RATE.periodMs - DELIVERY_MS)
    assert.ok(closest <= RATE.limit, `${closest} starts within ${RATE.periodMs - DELIVERY_MS} ms`)
    const times = starts.map((s) => s.at)
    const spanMs = Math.max(...times) - Math.min(...times)
    const periodsNeeded = Math.ceil((RUNS * RATED_CALLS) / RATE.limit) - 1
    assert.ok(spanMs >= periodsNeeded * RATE.periodMs - DELIVERY_MS, `not faster: ${spanMs} ms`)
    const slack = periodsNeeded * RATE.periodMs * 0.5 + 5_000
    assert.ok(spanMs <= periodsNeeded * RATE.periodMs + slack, `not much slower: ${spanMs} ms`)
    console.log(
      `${kind}: ${starts.length} calls by ${pids.size} processes over ${spanMs} ms ` +
        `(${periodsNeeded} periods needed); most starts in a full period: ` +
        `${mostInWindow(starts, RATE.periodMs)}, in ${RATE.periodMs - DELIVERY_MS} ms: ${closest}`,
    )
  } finally {
    for (const child of children) await kill(child).catch(() => {})
    await client.close(0)
    await place.drop()
  }
}
