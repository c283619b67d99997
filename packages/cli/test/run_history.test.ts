/**
 * `cairn run <id> --history`: the bin prints the run's recorded history, the document
 * engine.exportHistory returns, which replayHistory takes as a fixture.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Engine, RecordedHistory } from '@cairn/core'
import { replayHistory } from '@cairn/core/testing'
import {
  cairn,
  cardState,
  cliStores,
  drivingEngine,
  freshDatabase,
  type Database,
} from './cli_fixture.ts'

for (const kind of await cliStores()) {
  void describe(`cairn run --history [${kind}]`, () => {
    let db: Database
    let engine: Engine
    before(async () => {
      db = await freshDatabase(kind)
      engine = await drivingEngine(await db.open())
    })
    after(async () => {
      await engine.close()
      await db.drop()
    })

    void test('prints the exported history; it replays on the same code', async () => {
      cardState.declined = true
      const { runId } = await engine.start('charge', 42, { runId: 'charge-h1' })
      await engine.waitForRun(runId, { timeoutMs: 20_000 })
      const { code, stdout, stderr } = await cairn(['run', runId, '--history', '--store', db.url])
      assert.equal(code, 0, stderr)
      const history = JSON.parse(stdout) as RecordedHistory
      assert.deepEqual(history, {
        ...(await engine.exportHistory(runId)),
        exportedAt: history.exportedAt,
      })
      assert.equal(history.format, 'cairn.history')
      assert.deepEqual(
        history.checkpoints.map((c) => [c.name, c.status]),
        [
          ['reserve', 'completed'],
          ['charge', 'failed'],
        ],
      )
      const report = await replayHistory(
        {
          register: (e) =>
            e.register('charge', 2, async (ctx, amount: number) => {
              await ctx.localStep('reserve', () => amount)
              return ctx.localStep('charge', () => ({ charged: amount }))
            }),
        },
        history,
      )
      assert.deepEqual(report.endedAt, { kind: 'finished', status: 'failed' })
    })

    void test('an unknown id is E_RUN_NOT_FOUND (exit 1); paging options are refused (exit 2)', async () => {
      const missing = await cairn(['run', 'nope', '--history', '--store', db.url])
      assert.equal(missing.code, 1)
      assert.equal(missing.stdout, '')
      assert.match(missing.stderr, /^E_RUN_NOT_FOUND: no run with id "nope"/)
      const paged = await cairn(['run', 'nope', '--history', '--limit', '5', '--store', db.url])
      assert.equal(paged.code, 2)
      assert.match(paged.stderr, /--history prints the whole history as JSON: drop --limit/)
    })
  })
}
