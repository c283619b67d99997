import assert, { AssertionError } from 'node:assert/strict'
import { test } from 'node:test'
import { FatalError } from '../../src/errors/index.ts'
import { createTestEngine, expectRun, type TestEngine } from '../../src/testing/index.ts'

const quick = { retries: 1, backoff: { delay: 10, jitter: 0 } }

/** A harness with the workflows these tests start, closed after the test. */
async function harness(t: { after: (fn: () => Promise<void>) => void }): Promise<TestEngine> {
  const h = await createTestEngine()
  t.after(() => h.close())
  h.engine.register('echo', 1, async (ctx, input: unknown) => ctx.localStep('echo', () => input))
  h.engine.register('nap', 1, async (ctx) => {
    await ctx.localStep('before', () => 1)
    await ctx.sleep('1h')
    return ctx.localStep('after', () => 'rested')
  })
  h.engine.register('approval', 1, async (ctx) => {
    await ctx.localStep('ask', () => 'asked')
    return ctx.waitForSignal('approve')
  })
  h.engine.register('broken', 1, async (ctx) => {
    await ctx.localStep('ok', () => 1)
    await ctx.localStep(
      'boom',
      () => {
        throw new Error('nope')
      },
      quick,
    )
  })
  h.engine.register('declined', 1, async (ctx) =>
    ctx.localStep('charge', () => {
      throw new FatalError('card declined')
    }),
  )
  h.engine.register('loop', 1, async (ctx) => {
    let attempt = 0
    for (const item of ['a', 'b', 'c'])
      await ctx.localStep(
        'item',
        (step) => {
          if (item === 'b' && step.attempt === 1) throw new Error(`flaky ${item}`)
          attempt = step.attempt
          return item
        },
        quick,
      )
    return attempt
  })
  return h
}

/** Asserts `promise` rejects with an AssertionError whose message matches every pattern. */
async function failsWith(
  promise: Promise<unknown>,
  ...patterns: RegExp[]
): Promise<AssertionError> {
  let caught: unknown
  await assert.rejects(promise, (error: unknown) => ((caught = error), true))
  assert.ok(caught instanceof AssertionError, `not an AssertionError: ${String(caught)}`)
  for (const pattern of patterns) assert.match(caught.message, pattern)
  return caught
}

void test('toComplete resolves with the outcome; with output, compares it deeply', async (t) => {
  const h = await harness(t)
  const { runId } = await h.engine.start('echo', { a: [1, 2] })
  const outcome = await expectRun(h, runId).toComplete({ output: { a: [1, 2] } })
  assert.deepEqual(outcome, { runId, status: 'completed', output: { a: [1, 2] } })
  await expectRun(h.engine, runId).toComplete()
})

void test('toComplete with the wrong output shows both and the history', async (t) => {
  const h = await harness(t)
  const { runId } = await h.engine.start('echo', { a: 1 })
  const error = await failsWith(
    expectRun(h, runId).toComplete({ output: { a: 2 } }),
    /to complete with output \{ a: 2 \}/,
    /is completed with output \{ a: 1 \}/,
    /#0 local "echo" completed \(1 attempt\)/,
  )
  assert.deepEqual(error.expected, { status: 'completed', output: { a: 2 } })
  assert.deepEqual(error.actual, { runId, status: 'completed', output: { a: 1 } })
  assert.equal(error.operator, 'expectRun.toComplete')
})

void test('toComplete on a run still asleep times out saying what it waits on', async (t) => {
  const h = await harness(t)
  const { runId } = await h.engine.start('nap', null)
  const error = await failsWith(
    expectRun(h, runId).toComplete({ timeoutMs: 50 }),
    /had not ended after 50 ms/,
    /is waiting on sleep 1h/,
    /wakes at 2030-01-01T01:00:00\.000Z: on a fake clock, advance time/,
    /#0 local "before" completed/,
    /#1 sleep "sleep" waiting/,
  )
  assert.equal(error.actual, 'waiting')
  assert.equal(error.expected, 'completed')
  await h.skipTime('1h')
  await expectRun(h, runId).toComplete({ output: 'rested' })
})

void test('toComplete on a failed run shows the error and the failed step', async (t) => {
  const h = await harness(t)
  const { runId } = await h.engine.start('broken', null)
  await h.runUntilIdle()
  await failsWith(
    expectRun(h, runId).toComplete(),
    /is failed: Error: nope/,
    /#1 local "boom" failed \(2 attempts, last error Error: nope\)/,
  )
})

void test('toComplete follows continueAsNew to the last run of the chain', async (t) => {
  const h = await harness(t)
  h.engine.register('countdown', 1, async (ctx, n: number) =>
    n > 0 ? ctx.continueAsNew(n - 1) : 'liftoff',
  )
  const { runId } = await h.engine.start('countdown', 2)
  const outcome = await expectRun(h, runId).toComplete({ output: 'liftoff' })
  assert.notEqual(outcome.runId, runId)
})

void test('toFail checks the code and the message (equal string or RegExp)', async (t) => {
  const h = await harness(t)
  const { runId } = await h.engine.start('declined', null)
  const outcome = await expectRun(h, runId).toFail({ code: 'E_FATAL', message: 'card declined' })
  assert.equal(outcome.error.message, 'card declined')
  await expectRun(h, runId).toFail({ message: /declined/ })
  await failsWith(expectRun(h, runId).toFail({ message: 'card' }), /with message 'card'/)
})

void test('toFail with the wrong code shows the code the run failed with', async (t) => {
  const h = await harness(t)
  const { runId } = await h.engine.start('declined', null)
  const error = await failsWith(
    expectRun(h, runId).toFail({ code: 'E_OUT_OF_STOCK' }),
    /to fail with code E_OUT_OF_STOCK/,
    /is failed: FatalError \[E_FATAL\]: card declined/,
  )
  assert.deepEqual(error.actual, { status: 'failed', code: 'E_FATAL', message: 'card declined' })
})

void test('toFail on a run that completed fails showing its output', async (t) => {
  const h = await harness(t)
  const { runId } = await h.engine.start('echo', 'fine')
  await failsWith(expectRun(h, runId).toFail(), /to fail\n/, /is completed with output 'fine'/)
})

void test('toBeCancelled and toEndDead check how the run ended', async (t) => {
  const h = await harness(t)
  const { runId } = await h.engine.start('approval', null)
  await h.skipTime(0)
  await h.engine.cancel(runId, { reason: 'changed my mind' })
  const outcome = await expectRun(h, runId).toBeCancelled()
  assert.equal(outcome.error.message, 'changed my mind')
  await failsWith(
    expectRun(h, runId).toEndDead(),
    /to end dead/,
    /is cancelled: CancelledError \[E_RUN_CANCELLED\]: changed my mind/,
  )
  const done = await h.engine.start('echo', 1)
  await failsWith(expectRun(h, done.runId).toBeCancelled(), /is completed with output 1/)
})

void test('toBeWaiting reads the run now and checks what it waits on', async (t) => {
  const h = await harness(t)
  const { runId } = await h.engine.start('approval', null)
  await failsWith(
    expectRun(h, runId).toBeWaiting(),
    /is (running|pending)/,
    /has not reached a wait yet/,
  )
  await h.skipTime(0)
  const run = await expectRun(h, runId).toBeWaiting({ on: 'signal "approve"' })
  assert.equal(run.id, runId)
  const sticky = /approve/g // a global RegExp keeps lastIndex between test() calls
  await expectRun(h, runId).toBeWaiting({ on: sticky })
  await expectRun(h, runId).toBeWaiting({ on: sticky })
  const error = await failsWith(
    expectRun(h, runId).toBeWaiting({ on: /sleep/ }),
    /to be waiting on \/sleep\//,
    /is waiting on signal "approve"/,
    /#0 local "ask" completed/,
  )
  assert.deepEqual(error.actual, { status: 'waiting', waitingOn: 'signal "approve"' })
})

void test('toBeWaiting follows continueAsNew; the step expectations read the given run', async (t) => {
  const h = await harness(t)
  h.engine.register('rounds', 1, async (ctx, round: number) => {
    await ctx.localStep(`round ${round}`, () => round)
    return round < 2 ? ctx.continueAsNew(round + 1) : ctx.waitForSignal('stop')
  })
  const { runId } = await h.engine.start('rounds', 1)
  await h.skipTime(0)
  const latest = await expectRun(h, runId).toBeWaiting({ on: 'signal "stop"' })
  assert.notEqual(latest.id, runId)
  await expectRun(h, runId).toHaveRunSteps(['round 1'])
  await expectRun(h, latest.id).toHaveRunSteps(['round 2'])
})

void test('toHaveRunSteps lists the steps in position order, not sleeps or signals', async (t) => {
  const h = await harness(t)
  const { runId } = await h.engine.start('nap', null)
  await h.runUntilIdle()
  await expectRun(h, runId).toHaveRunSteps(['before', 'after'])
  const error = await failsWith(
    expectRun(h, runId).toHaveRunSteps(['after', 'before']),
    /to have run steps \[ 'after', 'before' \], but it ran \[ 'before', 'after' \]/,
    /#1 sleep "sleep" completed/,
  )
  assert.deepEqual(error.actual, ['before', 'after'])
  assert.deepEqual(error.expected, ['after', 'before'])
})

void test('toHaveAttempts counts the recorded attempts; a repeated name needs an index', async (t) => {
  const h = await harness(t)
  const { runId } = await h.engine.start('loop', null)
  await h.runUntilIdle()
  await expectRun(h, runId).toHaveAttempts('item', 2, { index: 1 })
  await expectRun(h, runId).toHaveAttempts('item', 1, { index: 0 })
  await failsWith(
    expectRun(h, runId).toHaveAttempts('item', 1),
    /step "item" was recorded 3 times \(#0, #1, #2\): pass \{ index \}/,
  )
  await failsWith(expectRun(h, runId).toHaveAttempts('item', 1, { index: 3 }), /no occurrence 3/)
  const error = await failsWith(
    expectRun(h, runId).toHaveAttempts('item', 1, { index: 1 }),
    /to have step "item" \(#1\) with 1 attempt, but it has 2/,
    /#1 local "item" completed \(2 attempts\)/,
  )
  assert.equal(error.actual, 2)
  assert.equal(error.expected, 1)
  await failsWith(
    expectRun(h, runId).toHaveAttempts('missing', 1),
    /no step named "missing" was recorded/,
    /#0 local "item"/,
  )
})

void test('toHaveStepFailedThenSucceeded needs the step completed after exactly n failures', async (t) => {
  const h = await harness(t)
  const { runId } = await h.engine.start('loop', null)
  await h.runUntilIdle()
  await expectRun(h, runId).toHaveStepFailedThenSucceeded('item', 1, { index: 1 })
  await failsWith(
    expectRun(h, runId).toHaveStepFailedThenSucceeded('item', 1, { index: 0 }),
    /fail 1 time then succeed, but it is completed after 1 attempt\n/,
  )
  const broken = await h.engine.start('broken', null)
  await h.runUntilIdle()
  const error = await failsWith(
    expectRun(h, broken.runId).toHaveStepFailedThenSucceeded('boom', 1),
    /but it is failed after 2 attempts/,
  )
  assert.deepEqual(error.actual, { status: 'failed', attempts: 2 })
  assert.deepEqual(error.expected, { status: 'completed', attempts: 2 })
})

void test('an unknown run id fails every expectation saying so', async (t) => {
  const h = await harness(t)
  const expectation = expectRun(h, 'no-such-run')
  await failsWith(expectation.toComplete(), /"no-such-run" to complete, but no run has this id/)
  await failsWith(expectation.toBeWaiting(), /but no run has this id/)
  await failsWith(expectation.toHaveRunSteps([]), /to exist, but no run has this id/)
})
