/** docs/children.md's example, runnable: an order that ships its parcels as child workflows. */
import assert from 'node:assert/strict'
import { ChildFailedError } from '@cairn/core'
import { createTestEngine } from '@cairn/core/testing'

const t = await createTestEngine()
t.engine.register('ship-parcel', 1, async (ctx, parcel: { id: string; kg: number }) => {
  if (parcel.kg > 30) throw new Error(`parcel ${parcel.id} is too heavy`)
  return ctx.localStep('label', () => `label-${parcel.id}`)
})
t.engine.register('order', 1, async (ctx, parcels: { id: string; kg: number }[]) => {
  const settled = await ctx.allSettled<string>('ship-parcel', parcels)
  const labels = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []))
  const problems = settled.flatMap((s) =>
    s.status === 'rejected' && ChildFailedError.is(s.reason)
      ? [(s.reason.cause as Error).message]
      : [],
  )
  return { labels, problems }
})

const { runId } = await t.engine.start('order', [
  { id: 'a', kg: 2 },
  { id: 'b', kg: 45 },
])
const outcome = await t.engine.waitForRun(runId)
assert.deepEqual(outcome.status === 'completed' && outcome.output, {
  labels: ['label-a'],
  problems: ['parcel b is too heavy'],
})
const children = await t.engine.listRuns({ parentRunId: runId })
assert.equal(children.runs.length, 2) // each child is a run of its own, linked to its parent
await t.close()
console.log('order shipped parcel a; parcel b failed in its own child run')
