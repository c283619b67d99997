/**
 * docs/requeue.md's example, runnable: a checkout whose payment step exhausts its retries while
 * the provider is down; once it is back, `engine.requeue` resumes the run at that step — the
 * reservation made before is replayed from its checkpoint, not made again.
 */
import assert from 'node:assert/strict'
import { createTestEngine } from '@cairn/core/testing'

const t = await createTestEngine()
let providerUp = false
let reservations = 0
let charges = 0
t.engine.register('checkout', 1, async (ctx, order: { id: string; total: number }) => {
  const reservation = await ctx.localStep('reserve', () => `res-${order.id}-${++reservations}`)
  const charge = await ctx.localStep(
    'charge',
    () => {
      charges++
      if (!providerUp) throw new Error('payment provider unavailable')
      return `ch-${order.total}`
    },
    { retries: 2, backoff: { type: 'fixed', delay: '1s', jitter: 0 } },
  )
  return { reservation, charge }
})

const { runId } = await t.engine.start('checkout', { id: 'o-1', total: 42 })
await t.skipTime('1s') // first retry
await t.skipTime('1s') // second retry: the step has used its retries, the run fails
const failed = await t.engine.waitForRun(runId)
assert.equal(failed.status, 'failed')

providerUp = true // the outage is over (or the fix is deployed)
const { positionsReset } = await t.engine.requeue(runId)
assert.equal(positionsReset, 1) // the failed "charge" runs again, with a fresh retry budget

const outcome = await t.engine.waitForRun(runId)
assert.deepEqual(outcome, {
  runId,
  status: 'completed',
  output: { reservation: 'res-o-1-1', charge: 'ch-42' },
})
assert.equal(reservations, 1) // replayed from its checkpoint, never made twice
assert.equal(charges, 4) // 3 attempts before the requeue, 1 after
await t.close()
console.log('requeued after the outage: the charge ran again, the reservation was replayed')
