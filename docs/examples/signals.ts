/** docs/signals.md's example, runnable: an approval that waits for a manager, with a deadline. */
import assert from 'node:assert/strict'
import { SignalTimeoutError } from '@cairn/core'
import { createTestEngine } from '@cairn/core/testing'

const t = await createTestEngine()
t.engine.register('expense', 1, async (ctx, amount: number) => {
  if (amount < 100) return 'auto-approved'
  try {
    const decision = await ctx.waitForSignal<{ approved: boolean; by: string }>('decision', {
      timeoutMs: 48 * 3_600_000,
    })
    return decision.approved ? `approved by ${decision.by}` : `rejected by ${decision.by}`
  } catch (error) {
    if (SignalTimeoutError.is(error)) return 'escalated: nobody answered in 48 h'
    throw error
  }
})

// A manager answers: from an HTTP route, a queue consumer, another process.
const { runId } = await t.engine.start('expense', 250)
await t.skipTime('3h')
await t.engine.signal(
  { runId, name: 'decision' },
  { approved: true, by: 'grace' },
  { signalId: 'mail-123' },
)
assert.deepEqual(await t.engine.waitForRun(runId), {
  runId,
  status: 'completed',
  output: 'approved by grace',
})

// Nobody answers: the wait times out after 48 (fake) hours.
const late = await t.engine.start('expense', 900)
await t.skipTime('48h')
const outcome = await t.engine.waitForRun(late.runId)
assert.equal(outcome.status === 'completed' && outcome.output, 'escalated: nobody answered in 48 h')
await t.close()
console.log('one expense approved by signal, one escalated after its deadline')
