/**
 * docs/retry-and-fork.md's example, runnable: a shipment whose address was wrong fails; an
 * operator retries it with the corrected input, then forks the successful run from its
 * "ship" step — the label is reused, only the shipping runs again.
 */
import assert from 'node:assert/strict'
import { createTestEngine } from '@cairn/core/testing'

const t = await createTestEngine()
let labels = 0
let shipments = 0
t.engine.register('ship-order', 1, async (ctx, order: { id: string; zip: string }) => {
  const label = await ctx.localStep('label', () => `label-${order.id}-${++labels}`)
  const tracking = await ctx.localStep(
    'ship',
    () => {
      shipments++
      if (!/^\d{5}$/.test(order.zip)) throw new Error(`bad zip ${order.zip}`)
      return `track-${order.zip}-${shipments}`
    },
    { retries: 0 },
  )
  return { label, tracking }
})

// The input had a typo: the run fails at "ship".
const { runId: failed } = await t.engine.start(
  'ship-order',
  { id: 'o-1', zip: '9021' },
  {
    tags: ['eu', 'batch-7'],
  },
)
assert.equal((await t.engine.waitForRun(failed)).status, 'failed')

// Retry with edited input: a new run of the same workflow version, nothing copied.
const retry = await t.engine.retryWithInput(failed, { id: 'o-1', zip: '90210' })
const retried = await t.engine.waitForRun(retry.runId)
assert.deepEqual(retried, {
  runId: retry.runId,
  status: 'completed',
  output: { label: 'label-o-1-2', tracking: 'track-90210-2' },
})
const info = await t.engine.getRun(retry.runId)
assert.deepEqual(info?.origin, { kind: 'retry', runId: failed, fromSeq: null })
assert.deepEqual(info?.tags, ['eu', 'batch-7']) // the source's tags

// Fork from position 1 ("ship"): position 0 ("label") is reused, "ship" runs again.
const fork = await t.engine.fork(retry.runId, { fromSeq: 1 })
const forked = await t.engine.waitForRun(fork.runId)
assert.deepEqual(forked, {
  runId: fork.runId,
  status: 'completed',
  output: { label: 'label-o-1-2', tracking: 'track-90210-3' },
})
assert.equal(labels, 2) // the fork made no label of its own
assert.equal(shipments, 3)

// Every run made from the failed one, newest first.
const made = await t.engine.listRuns({ originRunId: failed })
assert.deepEqual(
  made.runs.map((r) => r.id),
  [retry.runId],
)
await t.close()
console.log('retried with a fixed zip, then forked from "ship": the label was reused')
