/**
 * docs/composition.md's example, runnable: Promise.race as a timeout around a slow step, and
 * Promise.allSettled over a step, a child and a signal — replayed the same after a restart.
 */
import assert from 'node:assert/strict'
import { FatalError } from '@cairn/core'
import { createTestEngine } from '@cairn/core/testing'

const t = await createTestEngine()
const { promise: lookupDone, resolve: finishLookup } = Promise.withResolvers<void>()
let lookups = 0
t.engine.register('score', 1, async (ctx) => ctx.localStep('model', () => 0.93))
t.engine.register('review', 1, async (ctx, id: string) => {
  const registry = await Promise.race([
    ctx.localStep('slow lookup', async () => {
      lookups++
      await lookupDone
      return `record ${id}`
    }),
    ctx.sleep('30s').then(() => 'timed out'),
  ])
  const [score, approval, audit] = await Promise.allSettled([
    ctx.child<number>('score', id),
    ctx.waitForSignal<string>('approval'),
    ctx.localStep('audit', () => {
      throw new FatalError('audit service down')
    }),
  ])
  await ctx.sleep('1h') // suspends: the next turn replays everything above from history
  return {
    registry,
    score: score.status === 'fulfilled' ? score.value : null,
    approval: approval.status === 'fulfilled' ? approval.value : null,
    audit: audit.status === 'rejected' ? (audit.reason as Error).message : 'ok',
  }
})

const { runId } = await t.engine.start('review', 'c-7')
await t.skipTime('30s') // the timeout wins while the lookup still runs
finishLookup() // the loser finishes: recorded, never run again
await t.engine.signal({ runId, name: 'approval' }, 'grace')
await t.skipTime('1h')
const outcome = await t.engine.waitForRun(runId)
assert.deepEqual(outcome.status === 'completed' && outcome.output, {
  registry: 'timed out',
  score: 0.93,
  approval: 'grace',
  audit: 'audit service down',
})
assert.equal(lookups, 1)
await t.close()
console.log('race and allSettled replayed the same; the losing lookup ran once')
