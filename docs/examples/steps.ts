/** docs/steps.md's example, runnable: a registered step, typed, retried, replayed after a restart. */
import assert from 'node:assert/strict'
import { defineStep, RetryableError } from '@cairn/core'
import { createTestEngine } from '@cairn/core/testing'

interface Charge {
  orderId: string
  cents: number
}

const charges: string[] = []
let outages = 1

const chargeCard = defineStep(
  'charge-card',
  async (charge: Charge, step) => {
    // The same key on every attempt: the payment API applies a retried charge once.
    if (outages-- > 0) throw new RetryableError('payment API unavailable')
    charges.push(step.idempotencyKey)
    return { chargeId: `ch_${charge.orderId}`, attempt: step.attempt }
  },
  { retries: 5, backoff: { type: 'fixed', delay: '1s', jitter: 0 } },
)

const t = await createTestEngine()
t.engine.registerStep(chargeCard)
t.engine.register('checkout', 1, async (ctx, order: Charge) => {
  const { chargeId, attempt } = await ctx.step(chargeCard, order) // typed: Charge in, result out
  const label = await ctx.step<string>('format-label', chargeId) // by name, registered below
  return { chargeId, attempt, label }
})
t.engine.registerStep('format-label', (chargeId: string) => `paid (${chargeId})`)

const { runId } = await t.engine.start('checkout', { orderId: 'o-1', cents: 4200 })
await t.clock.advance(1_000) // the retry's back-off
const outcome = await t.engine.waitForRun(runId)
assert.deepEqual(outcome, {
  runId,
  status: 'completed',
  output: { chargeId: 'ch_o-1', attempt: 2, label: 'paid (ch_o-1)' },
})
const steps = await t.engine.getSteps(runId)
assert.deepEqual(
  steps.map((s) => `${s.kind} ${s.name} ×${s.attempts}`),
  ['step charge-card ×2', 'step format-label ×1'],
)
assert.deepEqual(charges, [`${runId}/0`])
await t.close()
console.log(
  `charged once with key ${charges[0]} after a retry; history: ${steps.map((s) => s.name).join(', ')}`,
)
