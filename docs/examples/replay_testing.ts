/**
 * docs/replay-testing.md's example, runnable: record a run's history, keep it as a fixture,
 * and replay it against changed code — an unguarded new step is caught, a patched one passes.
 */
import assert from 'node:assert/strict'
import type { Engine, RecordedHistory, WorkflowContext } from '@cairn/core'
import { createTestEngine, replayHistory } from '@cairn/core/testing'

type Order = { id: string; email: string }

// The code as deployed when the run was recorded.
async function orderV1(ctx: WorkflowContext, order: Order) {
  await ctx.localStep('reserve', () => `reserved ${order.id}`)
  await ctx.sleep('2h') // the run is waiting here when its history is exported
  return ctx.localStep('ship', () => `shipped ${order.id}`)
}

// 1. Record: a real run, exported while it waits (in production: `cairn run <id> --history`).
const t = await createTestEngine()
t.engine.register('order', 1, orderV1)
const { runId } = await t.engine.start('order', { id: 'order-42', email: 'ada@example.com' })
await t.skipTime('1m')
const fixture = JSON.stringify(await t.engine.exportHistory(runId), null, 2) // fixtures/order-42.json
await t.close()

// 2. In CI: replay the fixture against the code about to be deployed.
const history = JSON.parse(fixture) as RecordedHistory

const unguarded = (engine: Engine) =>
  engine.register('order', 1, async (ctx: WorkflowContext, order: Order) => {
    await ctx.localStep('reserve', () => `reserved ${order.id}`)
    await ctx.localStep('fraud-check', () => true) // new, unguarded: breaks waiting runs
    await ctx.sleep('2h')
    return ctx.localStep('ship', () => `shipped ${order.id}`)
  })
await assert.rejects(replayHistory({ register: unguarded }, history), {
  code: 'E_NON_DETERMINISM',
  message:
    'position 1: history records sleep "sleep", the workflow code asked for local "fraud-check"',
})

const patched = (engine: Engine) =>
  engine.register('order', 1, async (ctx: WorkflowContext, order: Order) => {
    await ctx.localStep('reserve', () => `reserved ${order.id}`)
    if (ctx.patched('fraud-check')) await ctx.localStep('fraud-check', () => true)
    await ctx.sleep('2h')
    return ctx.localStep('ship', () => `shipped ${order.id}`)
  })
const report = await replayHistory({ register: patched }, history)
assert.equal(report.positions, 1)
assert.equal(report.endedAt.kind, 'waiting') // stopped at the sleep the history leaves open

console.log(
  `replayed ${report.positions} position(s) of ${runId}: the patched code matches; the unguarded one is caught`,
)
