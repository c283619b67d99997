import assert from 'node:assert/strict'
import { test } from 'node:test'
import { FatalError } from '../../src/errors/index.ts'
import type { StepContext } from '../../src/execution/types.ts'
import { createTestEngine, expectRun, failOnce, failTimes } from '../../src/testing/index.ts'

const backoff = { delay: 10, jitter: 0 }

void test('failTimes throws on the first n calls, then calls through, counting every call', () => {
  const double = failTimes(2, (n: number) => n * 2)
  assert.throws(() => double(1), { name: 'InjectedFailure', message: 'injected failure 1 of 2' })
  assert.throws(() => double(1), { name: 'InjectedFailure', message: 'injected failure 2 of 2' })
  assert.equal(double(21), 42)
  assert.equal(double(1), 2)
  assert.equal(double.calls, 4)
})

void test('each wrapper counts on its own; zero failures calls through at once', () => {
  const fn = (n: number) => n
  const first = failOnce(fn)
  const second = failOnce(fn)
  assert.throws(() => first(1))
  assert.throws(() => second(1))
  assert.equal(first(7), 7)
  assert.equal(first.calls, 2)
  assert.equal(second.calls, 1)
  assert.equal(failTimes(0, fn)(3), 3)
})

void test('the error is the one given, or made by the factory from the call number', () => {
  const given = new Error('down')
  const withError = failTimes(2, () => 'ok', given)
  assert.throws(
    () => withError(),
    (error) => error === given,
  )
  assert.throws(
    () => withError(),
    (error) => error === given,
  )
  const withFactory = failTimes(
    2,
    () => 'ok',
    (call) => new RangeError(`call ${call}`),
  )
  assert.throws(() => withFactory(), { name: 'RangeError', message: 'call 1' })
  assert.throws(() => withFactory(), { name: 'RangeError', message: 'call 2' })
  assert.equal(withFactory(), 'ok')
})

void test('a bad count is refused with E_INVALID_ARGUMENT', () => {
  for (const times of [-1, 1.5, Number.NaN, Infinity, 2_000_000])
    assert.throws(() => failTimes(times, () => 1), { code: 'E_INVALID_ARGUMENT' }, String(times))
})

void test('a local step failing twice succeeds on attempt 3 within its retries', async (t) => {
  const h = await createTestEngine()
  t.after(() => h.close())
  const charge = failTimes(2, (step: StepContext) => `charged on attempt ${step.attempt}`)
  h.engine.register('pay', 1, async (ctx) =>
    ctx.localStep('charge', charge, { retries: 3, backoff }),
  )
  const { runId } = await h.engine.start('pay', null)
  await h.runUntilIdle()
  await expectRun(h, runId).toComplete({ output: 'charged on attempt 3' })
  await expectRun(h, runId).toHaveStepFailedThenSucceeded('charge', 2)
  assert.equal(charge.calls, 3)
})

void test('failOnce wraps a registered step handler, receiving its input', async (t) => {
  const h = await createTestEngine()
  t.after(() => h.close())
  const ship = failOnce(
    async (order: { id: string }, step: StepContext) => `${order.id}:${step.attempt}`,
  )
  h.engine.registerStep('ship', ship, { retries: 1, backoff })
  h.engine.register('order', 1, async (ctx) => ctx.step('ship', { id: 'o-1' }))
  const { runId } = await h.engine.start('order', null)
  await h.runUntilIdle()
  await expectRun(h, runId).toComplete({ output: 'o-1:2' })
  await expectRun(h, runId).toHaveAttempts('ship', 2)
  assert.equal(ship.calls, 2)
})

void test('more failures than retries fail the run with the injected error', async (t) => {
  const h = await createTestEngine()
  t.after(() => h.close())
  const charge = failTimes(5, () => 'never')
  h.engine.register('pay', 1, async (ctx) =>
    ctx.localStep('charge', charge, { retries: 2, backoff }),
  )
  const { runId } = await h.engine.start('pay', null)
  await h.runUntilIdle()
  await expectRun(h, runId).toFail({ message: 'injected failure 3 of 5' })
  await expectRun(h, runId).toHaveAttempts('charge', 3)
  assert.equal(charge.calls, 3)
})

void test('an injected FatalError ends the step at its first attempt', async (t) => {
  const h = await createTestEngine()
  t.after(() => h.close())
  const charge = failOnce(() => 'never', new FatalError('card declined'))
  h.engine.register('pay', 1, async (ctx) =>
    ctx.localStep('charge', charge, { retries: 3, backoff }),
  )
  const { runId } = await h.engine.start('pay', null)
  await expectRun(h, runId).toFail({ code: 'E_FATAL', message: 'card declined' })
  assert.equal(charge.calls, 1)
})
