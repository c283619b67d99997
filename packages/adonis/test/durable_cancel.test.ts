/**
 * `node ace durable:cancel <runId>` in the fixture app, as a child process: a cancel, a saga
 * cancel (--compensate) that a driving engine then carries out, and the error paths.
 */
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { test } from 'node:test'
import { Engine, silentLogger } from '@cairn/core'
import { SqliteStore } from '@cairn/sql/sqlite'
import { runAce } from './ace_process.ts'
import { clientEngine } from './client_engine.ts'
import { tempDir } from './helpers.ts'

void test('cancels a run that has not finished; a finished or unknown run is an error, exit 1', async (t) => {
  const db = join(await tempDir(t), 'durable.sqlite')
  const client = await clientEngine(t, db)
  const { runId } = await client.start('echo', 'x', { runId: 'to-cancel' })

  const cancelled = await runAce(['durable:cancel', runId, '--reason=customer asked'], db)
  assert.equal(cancelled.code, 0, cancelled.stderr)
  assert.match(cancelled.stdout, /Run to-cancel cancelled/)
  const outcome = await client.waitForRun(runId, { timeoutMs: 1 })
  assert.equal(outcome.status, 'cancelled')
  assert.equal(outcome.status === 'cancelled' && outcome.error.message, 'customer asked')

  const again = await runAce(['durable:cancel', runId], db)
  assert.equal(again.code, 1)
  assert.match(
    again.stderr,
    /E_RUN_TERMINAL: run "to-cancel" already finished \(cancelled\); it cannot be cancelled/,
  )
  const unknown = await runAce(['durable:cancel', 'no-such-run'], db)
  assert.equal(unknown.code, 1)
  assert.match(unknown.stderr, /E_RUN_NOT_FOUND: no run with id "no-such-run"/)
})

void test('--compensate asks the run to undo its steps; the engine that drives it ends it cancelled', async (t) => {
  const db = join(await tempDir(t), 'durable.sqlite')
  const client = await clientEngine(t, db)
  const { runId } = await client.start('echo', 'x', { runId: 'saga' })

  const exit = await runAce(['durable:cancel', runId, '--compensate'], db)
  assert.equal(exit.code, 0, exit.stderr)
  assert.match(exit.stdout, /Run saga will compensate and then end cancelled/)
  // Only asked: nothing drives runs yet, so the run has not ended.
  assert.equal((await client.getRun(runId))?.status, 'pending')

  const worker = new Engine({ store: new SqliteStore({ path: db }), logger: silentLogger })
  t.after(() => worker.close(0))
  worker.register('echo', 1, async (ctx, input: string) => ctx.localStep('echo', () => input))
  await worker.startDriving()
  const outcome = await worker.waitForRun(runId, { timeoutMs: 30_000 })
  assert.equal(outcome.status, 'cancelled')
})
