/**
 * docs/cancellation.md's example, runnable: an export cancelled while a step is in flight — the
 * step sees its AbortSignal, its late result is recorded, nothing after it runs.
 */
import assert from 'node:assert/strict'
import { createTestEngine } from '@cairn/core/testing'

const t = await createTestEngine()
const { promise: uploaded, resolve: finishUpload } = Promise.withResolvers<void>()
const { promise: uploading, resolve: uploadStarted } = Promise.withResolvers<void>()
let aborted = false
let notified = false
t.engine.register('export', 1, async (ctx) => {
  const file = await ctx.localStep('upload', async ({ signal }) => {
    signal.addEventListener('abort', () => (aborted = true))
    uploadStarted()
    await uploaded // the upload is under way when the operator cancels
    return 'report.csv'
  })
  await ctx.localStep('notify', () => (notified = true))
  return file
})

const { runId } = await t.engine.start('export', null)
await uploading
await t.engine.cancel(runId, { reason: 'wrong date range' })
finishUpload()
await t.engine.whenQuiet() // the late result's write lands

const outcome = await t.engine.waitForRun(runId)
assert.equal(outcome.status, 'cancelled')
assert.equal(aborted, true) // the step's signal told it to stop
assert.equal(notified, false) // no step starts after the cancel
const [upload] = await t.engine.getSteps(runId)
assert.deepEqual(
  [upload?.name, upload?.status, upload?.output],
  ['upload', 'completed', 'report.csv'],
)
await t.close()
console.log('cancelled mid-upload: the late result is on the timeline, nothing ran after it')
