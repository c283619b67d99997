/**
 * A poison run under real kills (issue 16), on Postgres and on MariaDB: `poison` kills its
 * engine process (SIGKILL) in a step on every attempt. A supervisor restarts the engine each
 * time it dies (the same instance id: the restart reclaims the run at once, a takeover like
 * any other). With maxRecoveryAttempts 3 the step explodes exactly 4 times (the first holder
 * and 3 recoveries); the 4th takeover ends the run `dead` instead of running it, the process
 * lives on, and the run's dead letter runs once. Its first step never re-runs. Counted from
 * the ledger the handlers write before each effect.
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { poisonLines } from '../crash/poison_workflow.ts'
import type { ServerKind } from '../crash/server_sites.ts'
import { kill, pause, spawnEngine, type EngineChild } from '../crash/supervisor.ts'
import { serviceAvailable } from '../helpers/services.ts'
import { openFaultSite } from './fault_site.ts'

const MAX_RECOVERY = 3
const TARGETS: Record<string, ServerKind> = { Postgres: 'postgres', MariaDB: 'mysql' }

for (const [label, kind] of Object.entries(TARGETS)) {
  const available = await serviceAvailable(kind)
  void test(
    `a run that kills its engine every time ends dead after ${MAX_RECOVERY} recoveries on ${label}`,
    { skip: !available && `${kind} unreachable`, timeout: 120_000 },
    () => poisonKill(kind),
  )
}

async function poisonKill(kind: ServerKind): Promise<void> {
  const place = await openFaultSite(kind, 'cairn_poison')
  const { store, client, ledger } = place
  client.register('poison', 1, async () => null)
  const env = place.engineEnv('poison-engine', {
    CRASH_POISON_LEDGER: ledger,
    CRASH_MAX_RECOVERY: String(MAX_RECOVERY),
    CRASH_LEASE_MS: '2000',
  })
  let engine: EngineChild | null = null
  let deaths = 0
  try {
    const { runId } = await client.start('poison', null)
    // Restart the engine each time it dies, until one lives (the run is dead) or too many did.
    for (;;) {
      engine = await spawnEngine(env)
      const died = await Promise.race([
        engine.exited.then(() => true),
        pause(8_000).then(() => false),
      ])
      if (!died) break
      deaths += 1
      assert.ok(deaths <= MAX_RECOVERY + 2, `the engine keeps dying (${deaths} deaths)`)
    }
    const run = await store.getRun(runId)
    assert.equal(run?.status, 'dead', 'the run is dead')
    assert.equal(run?.recoveries, MAX_RECOVERY + 1)
    const letter = `dlq:${runId}`
    for (let i = 0; i < 100 && (await store.getRun(letter))?.status !== 'completed'; i++)
      await pause(100)
    assert.equal((await store.getRun(letter))?.status, 'completed', 'its dead letter ran')
    const text = readFileSync(ledger, 'utf8')
    assert.equal(deaths, MAX_RECOVERY + 1, 'the first holder and each recovery died')
    assert.equal(poisonLines(text, 'explode').length, MAX_RECOVERY + 1)
    assert.equal(poisonLines(text, 'reserve').length, 1, 'the completed step never re-ran')
    assert.deepEqual(
      poisonLines(text, 'letter').map((line) => line.split(' ').slice(1, 5)),
      [[runId, 'dead', String(MAX_RECOVERY + 1), 'E_RUN_DEAD']],
      'one dead letter',
    )
  } finally {
    if (engine !== null) await kill(engine)
    await place.drop()
  }
}
