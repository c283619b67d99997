/**
 * docs/flow-control.md's queue example, runnable: twelve orders call a carrier that takes two
 * calls at once. The `carrier` queue holds every other call until a slot frees, however many
 * runs are in flight; an express order's call goes first among those waiting, and one busy
 * merchant's calls do not starve another's.
 */
import assert from 'node:assert/strict'
import { Engine, MemoryStore, silentLogger } from '@cairn/core'

let inFlight = 0
let most = 0
const called: string[] = []
// The carrier answers once every order is in (so the order of the calls shows the queue's).
const { promise: carrierUp, resolve: openCarrier } = Promise.withResolvers<void>()

const engine = new Engine({
  store: new MemoryStore(),
  logger: silentLogger,
  // Two calls at once; each order's `merchant` is its fairness key (or engine.registerQueue).
  queues: { carrier: { concurrency: 2, fairness: 'merchant' } },
})
engine.registerStep('bookShipment', async (order: { id: string }) => {
  inFlight += 1
  most = Math.max(most, inFlight)
  called.push(order.id)
  await carrierUp // the carrier's API
  inFlight -= 1
  return `label-${order.id}`
})
engine.register('ship', 1, async (ctx, order: { id: string; merchant: string; express: boolean }) =>
  ctx.step('bookShipment', order, {
    queue: 'carrier',
    priority: order.express ? 10 : 0, // fairnessKey here would win over the queue's fairness
  }),
)
await engine.startDriving()

const ids: string[] = []
for (let i = 1; i <= 10; i++) {
  const { runId } = await engine.start('ship', {
    id: `bulk-${i}`,
    merchant: 'bulk',
    express: false,
  })
  ids.push(runId)
}
const small = await engine.start('ship', { id: 'small-1', merchant: 'small', express: false })
const express = await engine.start('ship', { id: 'express-1', merchant: 'bulk', express: true })
// Two calls hold the slots; the other ten wait in the queue (visible to operators).
while ((await engine.store.queueStats(['carrier'], Date.now()))[0]?.waiting !== 10)
  await new Promise((resolve) => setTimeout(resolve, 1))
openCarrier()
for (const runId of [...ids, small.runId, express.runId]) {
  const outcome = await engine.waitForRun(runId, { timeoutMs: 10_000 })
  assert.equal(outcome.status, 'completed')
}
await engine.close()

assert.equal(most, 2, 'never more than two carrier calls at once')
assert.equal(called.length, 12, 'each call made once')
// Two bulk calls took the slots at once; of those waiting, express went first, and the small
// merchant's one call did not wait for the bulk merchant's other seven.
assert.deepEqual(called.slice(0, 4), ['bulk-1', 'bulk-2', 'express-1', 'small-1'])
console.log(`carrier calls, in order: ${called.join(', ')}`)
