/**
 * docs/retention.md, runnable: finished runs go by policy — completed orders after an hour,
 * the newest two failed imports kept — in the background of a driving engine, each with its
 * child runs; `deleteRun` and `purgeRuns` delete by hand; a run an open parent still needs is
 * never deleted.
 */
import assert from 'node:assert/strict'
import { Engine, MemoryStore, silentLogger } from '@cairn/core'
import { FakeClock } from '@cairn/core/testing'

const clock = new FakeClock(Date.UTC(2026, 11, 1))
const engine = new Engine({
  store: new MemoryStore(),
  clock,
  logger: silentLogger,
  retention: {
    policies: [
      { workflow: 'order', statuses: ['completed'], maxAge: '1h' },
      { workflow: 'import', statuses: ['failed'], maxCount: 2 },
    ],
    interval: '1m',
  },
})
engine.register('invoice', 1, async (ctx, order: string) =>
  ctx.localStep('render', () => `invoice for ${order}`),
)
engine.register('order', 1, async (ctx, order: string) => ctx.child<string>('invoice', order))
engine.register('import', 1, async (ctx, file: string) =>
  ctx.localStep(
    'parse',
    () => {
      throw new Error(`${file}: bad header`)
    },
    { retries: 0 },
  ),
)
engine.register('batch', 1, async (ctx) => {
  await ctx.child('invoice', 'batch')
  return ctx.waitForSignal<string>('close')
})
await engine.startDriving()

async function finish(workflow: string, input: string, runId: string) {
  await engine.start(workflow, input, { runId })
  return engine.waitForRun(runId, { timeoutMs: 5_000 })
}
const exists = async (runId: string) => (await engine.getRun(runId)) !== null

// 1. A completed order and its invoice (a child run) go an hour after the order finished.
await finish('order', 'A-1', 'order-A-1')
const [invoice] = (await engine.listRuns({ parentRunId: 'order-A-1' })).runs
assert.ok(invoice !== undefined)
for (const file of ['jan.csv', 'feb.csv', 'mar.csv']) {
  await finish('import', file, `import-${file}`)
  await clock.advance(1_000)
}
await clock.advance(61 * 60_000) // the sweep runs every minute on the engine's clock
await engine.whenQuiet()
assert.equal(await exists('order-A-1'), false, 'an hour old: gone')
assert.equal(await exists(invoice.id), false, 'with its child run')
// 2. Failed imports: the newest two are kept, the oldest went.
assert.deepEqual(
  [await exists('import-jan.csv'), await exists('import-feb.csv'), await exists('import-mar.csv')],
  [false, true, true],
)

// 3. By hand: one run (and its subtree), or every finished run matching a filter.
await finish('order', 'B-2', 'order-B-2')
assert.deepEqual(await engine.deleteRun('order-B-2'), { runs: 2 })
const purged = await engine.purgeRuns({ status: 'failed', workflow: 'import' })
assert.deepEqual(purged, { roots: 2, runs: 2, refused: 0, refusals: [] })

// 4. Never a run something open still needs: the batch waits, its finished invoice stays.
await engine.start('batch', null, { runId: 'batch-1' })
await engine.whenQuiet()
await assert.rejects(engine.deleteRun('batch-1'), { code: 'E_RUN_NOT_DELETABLE' })
const [batchInvoice] = (await engine.listRuns({ parentRunId: 'batch-1' })).runs
assert.ok(batchInvoice !== undefined && batchInvoice.status === 'completed')
await assert.rejects(engine.deleteRun(batchInvoice.id), (error: { details: unknown }) => {
  assert.deepEqual(error.details, {
    runId: batchInvoice.id,
    blocker: { runId: 'batch-1', status: 'waiting', relation: 'parent' },
  })
  return true
})

await engine.close()
console.log('retention example: ok')
