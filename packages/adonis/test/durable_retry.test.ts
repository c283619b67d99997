/**
 * `node ace durable:retry <runId>` in the fixture app, as a child process: a failed run goes back
 * to pending with its failed step reset, and a driving engine then finishes it without running
 * its completed step again. A run that did not fail, or does not exist, is an error, exit 1.
 */
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { test } from 'node:test'
import { Engine, FatalError, silentLogger } from '@cairn/core'
import { SqliteStore } from '@cairn/sql/sqlite'
import { runAce } from './ace_process.ts'
import { clientEngine } from './client_engine.ts'
import { tempDir } from './helpers.ts'

/** A driving engine in the test process: `charge` runs once; `ship` fails until fixed. */
async function shopEngine(db: string, counts: { charge: number; ship: number }, fixed: boolean) {
  const engine = new Engine({
    store: new SqliteStore({ path: db }),
    logger: silentLogger,
    instanceId: `shop-${String(fixed)}`,
  })
  engine.register('ship-order', 1, async (ctx) => {
    await ctx.localStep('charge', () => ++counts.charge)
    return ctx.localStep('ship', () => {
      counts.ship += 1
      if (!fixed) throw new FatalError('carrier down')
      return 'shipped'
    })
  })
  await engine.startDriving()
  return engine
}

void test('retries a failed run from its failed step; completed steps are not run again', async (t) => {
  const db = join(await tempDir(t), 'durable.sqlite')
  const counts = { charge: 0, ship: 0 }
  const broken = await shopEngine(db, counts, false)
  const { runId } = await broken.start('ship-order', null, { runId: 'order-7' })
  assert.equal((await broken.waitForRun(runId, { timeoutMs: 30_000 })).status, 'failed')
  await broken.close(0)
  assert.deepEqual(counts, { charge: 1, ship: 1 })

  const retried = await runAce(['durable:retry', runId], db)
  assert.equal(retried.code, 0, retried.stderr)
  assert.match(retried.stdout, /Run order-7 requeued: 1 failed step will run again/)

  const fixed = await shopEngine(db, counts, true)
  t.after(() => fixed.close(0))
  const outcome = await fixed.waitForRun(runId, { timeoutMs: 30_000 })
  assert.deepEqual(outcome, { runId, status: 'completed', output: 'shipped' })
  assert.deepEqual(counts, { charge: 1, ship: 2 })
})

void test('a run that did not fail, or an unknown one: the error code, exit 1', async (t) => {
  const db = join(await tempDir(t), 'durable.sqlite')
  const client = await clientEngine(t, db)
  await client.start('echo', 'x', { runId: 'still-pending' })

  const pending = await runAce(['durable:retry', 'still-pending'], db)
  assert.equal(pending.code, 1)
  assert.match(pending.stderr, /E_RUN_NOT_REQUEUEABLE: .*pending/)
  const unknown = await runAce(['durable:retry', 'no-such-run'], db)
  assert.equal(unknown.code, 1)
  assert.match(unknown.stderr, /E_RUN_NOT_FOUND: no run with id "no-such-run"/)
})
