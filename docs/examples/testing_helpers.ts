/**
 * docs/testing.md's "Testing helpers", runnable: a payment step that fails twice is retried to
 * success, an approval waits for its signal, and a failing expectation explains itself.
 */
import assert, { AssertionError } from 'node:assert/strict'
import { createTestEngine, expectRun, failTimes } from '@cairn/core/testing'

const t = await createTestEngine()

// The gateway times out twice, then accepts: the wrapper throws on its first two calls.
const charge = failTimes(2, ({ attempt }) => `charged on attempt ${attempt}`)
t.engine.register('checkout', 1, async (ctx, orderId: string) => {
  await ctx.localStep('reserve', () => `reserved ${orderId}`)
  const receipt = await ctx.localStep('charge', charge, {
    retries: 3,
    backoff: { delay: '1s', jitter: 0 },
  })
  await ctx.sleep('1h')
  await ctx.localStep('ship', () => 'shipped')
  return receipt
})

const { runId } = await t.engine.start('checkout', 'o-1')
await t.runUntilIdle() // every back-off and the one-hour sleep pass at once
const checkout = expectRun(t, runId)
await checkout.toComplete({ output: 'charged on attempt 3' })
await checkout.toHaveRunSteps(['reserve', 'charge', 'ship']) // steps only: the sleep is left out
await checkout.toHaveStepFailedThenSucceeded('charge', 2)
await checkout.toHaveAttempts('charge', 3)
assert.equal(charge.calls, 3)

// A run waiting for a human: settle the engine first, then read where it stands.
t.engine.register('approval', 1, async (ctx) => ctx.waitForSignal<string>('approve'))
const approval = await t.engine.start('approval', null)
await t.skipTime(0)
await expectRun(t, approval.runId).toBeWaiting({ on: 'signal "approve"' })

// A failing expectation says what the run is: here, still waiting after 50 ms.
const failure = await expectRun(t, approval.runId)
  .toComplete({ timeoutMs: 50 })
  .catch((error: unknown) => error)
assert.ok(failure instanceof AssertionError)
assert.match(failure.message, /is waiting on signal "approve"/)
await t.engine.signal({ runId: approval.runId, name: 'approve' }, 'ok by Ada')
await expectRun(t, approval.runId).toComplete({ output: 'ok by Ada' })

await t.close()
console.log(
  `checkout ${runId} charged after ${charge.calls - 1} failures; the failed expectation said:`,
)
console.log(failure.message.split('\n').slice(0, 2).join('\n'))
