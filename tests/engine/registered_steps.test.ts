import assert from 'node:assert/strict'
import { defineStep, FatalError, type StepContext, type WorkflowContext } from '@cairn/core'
import { FakeClock } from '@cairn/core/testing'
import { eachStore } from '../helpers/harness.ts'

interface Order {
  id: string
  total: number
  placedAt: Date
}

// A typed reference: `ctx.step(chargeCard, order)` takes an Order and returns a Receipt.
const chargeCard = defineStep(
  'charge-card',
  async (order: Order, step: StepContext) => ({
    charged: order.total,
    placedYear: order.placedAt.getUTCFullYear(),
    key: step.idempotencyKey,
  }),
  { retries: 0 },
)

eachStore('registered steps (ctx.step)', (test) => {
  test('calls the handler with a codec copy of the input; records kind "step" with the output', async (env) => {
    const engine = await env.engine()
    const seen: { input: unknown; ctx: Partial<StepContext> }[] = []
    engine.registerStep('double', (input: { n: number; tags: Set<string> }, step) => {
      seen.push({
        input,
        ctx: { runId: step.runId, seq: step.seq, attempt: step.attempt, stepName: step.stepName },
      })
      input.n = -1 // the workflow's own object must not change
      return { doubled: input.n === -1 ? 'copy' : 'shared', tags: [...input.tags] }
    })
    engine.register('w', 1, async (ctx) => {
      const input = { n: 21, tags: new Set(['a']) }
      await ctx.localStep('before', () => 'first position')
      const result = await ctx.step('double', input)
      return { result, untouched: input.n }
    })
    const { runId } = await engine.start('w', null)
    assert.deepEqual(await engine.waitForRun(runId, { timeoutMs: 5_000 }), {
      runId,
      status: 'completed',
      output: { result: { doubled: 'copy', tags: ['a'] }, untouched: 21 },
    })
    assert.equal(seen.length, 1)
    assert.ok(seen[0]?.input !== null && (seen[0]?.input as { tags: unknown }).tags instanceof Set)
    assert.deepEqual(seen[0]?.ctx, { runId, seq: 1, attempt: 1, stepName: 'double' })
    const steps = await engine.getSteps(runId)
    assert.deepEqual(
      steps.map((s) => [s.seq, s.name, s.kind, s.status]),
      [
        [0, 'before', 'local', 'completed'],
        [1, 'double', 'step', 'completed'],
      ],
    )
  })

  test('a typed reference registers and calls the step; the idempotency key is <runId>/<seq>', async (env) => {
    const engine = await env.engine()
    engine.registerStep(chargeCard)
    engine.register('checkout', 1, async (ctx, order: Order) => {
      const receipt = await ctx.step(chargeCard, order)
      // Compile-time checks: the output type is inferred, the input type enforced.
      const charged: number = receipt.charged
      // @ts-expect-error -- `total` must be a number
      void (() => ctx.step(chargeCard, { id: 'x', total: '1', placedAt: new Date() }))
      return { charged, year: receipt.placedYear, key: receipt.key }
    })
    const order = { id: 'o-1', total: 42, placedAt: new Date('2026-01-02T00:00:00Z') }
    const { runId } = await engine.start('checkout', order)
    assert.deepEqual(await engine.waitForRun(runId, { timeoutMs: 5_000 }), {
      runId,
      status: 'completed',
      output: { charged: 42, year: 2026, key: `${runId}/0` },
    })
  })

  test('replay returns the recorded result: the handler is not called again after its checkpoint', async (env) => {
    const first = await env.engine({ instanceId: 'deploy-1' })
    let firstCalls = 0
    first.registerStep('reserve', () => `reserved by call ${++firstCalls}`)
    const body = async (ctx: Parameters<Parameters<typeof first.register>[2]>[0]) => {
      const reservation = await ctx.step<string>('reserve', { sku: 'a' })
      await ctx.sleep('1h')
      return reservation
    }
    first.register('order', 1, body)
    const { runId } = await first.start('order', null)
    await env.settle()
    assert.equal((await first.getRun(runId))?.status, 'waiting')
    await first.close()

    const second = await env.engine({ instanceId: 'deploy-2' })
    let secondCalls = 0
    second.registerStep('reserve', () => `reserved again ${++secondCalls}`)
    second.register('order', 1, body)
    await env.skip(3_600_000)
    assert.deepEqual(await second.waitForRun(runId, { timeoutMs: 5_000 }), {
      runId,
      status: 'completed',
      output: 'reserved by call 1',
    })
    assert.equal(firstCalls, 1)
    assert.equal(secondCalls, 0, 'a completed step is replayed, never re-run')
  })

  test('a crash after the checkpoint: the restarted engine replays the step, the step in flight runs again', async (env) => {
    const calls = { reserve: 0, ship: 0 }
    const body = async (ctx: WorkflowContext) => {
      const reservation = await ctx.step<string>('reserve', 'sku-1')
      const shipment = await ctx.step<string>('ship', reservation)
      return shipment
    }
    // The first process "dies" inside `ship`: its clock is frozen, it does nothing more.
    const first = await env.engine({
      instanceId: 'node-a',
      leaseMs: 60_000,
      clock: new FakeClock(env.clock.now()),
    })
    first.registerStep('reserve', (sku: string) => (calls.reserve++, `hold-${sku}`))
    first.registerStep('ship', () => (calls.ship++, new Promise<never>(() => {})))
    first.register('order', 1, body)
    const { runId } = await first.start('order', null)
    await env.settle()
    assert.deepEqual(calls, { reserve: 1, ship: 1 })

    const restarted = await env.engine({ instanceId: 'node-a', leaseMs: 60_000 })
    restarted.registerStep('reserve', (sku: string) => (calls.reserve++, `again-${sku}`))
    restarted.registerStep('ship', (hold: string) => (calls.ship++, `shipped ${hold}`))
    restarted.register('order', 1, body)
    await env.settle()
    await env.skip(1)
    assert.deepEqual(await restarted.waitForRun(runId, { timeoutMs: 5_000 }), {
      runId,
      status: 'completed',
      output: 'shipped hold-sku-1',
    })
    assert.deepEqual(calls, { reserve: 1, ship: 2 }, 'only the step without a checkpoint ran again')
  })

  test('retries follow the registered options; call options override them field by field', async (env) => {
    const engine = await env.engine()
    const attempts: Record<string, number> = {}
    engine.registerStep(
      'flaky',
      (key: string, step) => {
        attempts[key] = step.attempt
        throw new Error(`attempt ${step.attempt} of ${key} failed`)
      },
      { retries: 2, backoff: { type: 'fixed', delay: '1s', jitter: 0 } },
    )
    engine.register('w', 1, async (ctx) => {
      const settled = await Promise.allSettled([
        ctx.step('flaky', 'registered'),
        ctx.step('flaky', 'overridden', { retries: 0 }),
        ctx.step('flaky', 'faster', { backoff: { delay: 10 } }),
      ])
      return settled.map((s) => s.status)
    })
    const { runId } = await engine.start('w', null)
    await env.skip(10)
    await env.skip(10)
    assert.deepEqual(attempts, { registered: 1, overridden: 1, faster: 3 })
    await env.skip(1_000)
    await env.skip(1_000)
    assert.deepEqual(await engine.waitForRun(runId, { timeoutMs: 5_000 }), {
      runId,
      status: 'completed',
      output: ['rejected', 'rejected', 'rejected'],
    })
    assert.deepEqual(attempts, { registered: 3, overridden: 1, faster: 3 })
    const steps = await engine.getSteps(runId)
    assert.deepEqual(
      steps.map((s) => [s.kind, s.status, s.attempts]),
      [
        ['step', 'failed', 3],
        ['step', 'failed', 1],
        ['step', 'failed', 3],
      ],
    )
  })

  test('FatalError from a handler fails the step at once; the workflow can catch it', async (env) => {
    const engine = await env.engine()
    let calls = 0
    engine.registerStep('decline', () => {
      calls++
      throw new FatalError('card declined')
    })
    engine.register('w', 1, async (ctx) =>
      ctx.step('decline', null).catch((error: Error & { code?: string }) => error.code),
    )
    const { runId } = await engine.start('w', null)
    const outcome = await engine.waitForRun(runId, { timeoutMs: 5_000 })
    assert.deepEqual(outcome, { runId, status: 'completed', output: 'E_FATAL' })
    assert.equal(calls, 1)
  })

  test('an input the codec cannot carry fails the step (E_NOT_SERIALIZABLE, not retried, handler not called)', async (env) => {
    const engine = await env.engine()
    let calls = 0
    engine.registerStep('notify', () => ++calls, { retries: 5 })
    engine.register('w', 1, async (ctx) =>
      ctx
        .step('notify', { callback: () => 'functions do not travel' })
        .catch((error: Error & { code?: string }) => ({
          code: error.code,
          message: error.message,
        })),
    )
    const { runId } = await engine.start('w', null)
    const outcome = await engine.waitForRun(runId, { timeoutMs: 5_000 })
    assert.equal(outcome.status, 'completed')
    const output = (outcome as { output: { code: string; message: string } }).output
    assert.equal(output.code, 'E_NOT_SERIALIZABLE')
    assert.match(output.message, /input of step "notify"/)
    assert.equal(calls, 0)
    const [step] = await engine.getSteps(runId)
    assert.equal(step?.attempts, 1)
  })

  test('an unknown step parks the run naming it; an engine that registers it resumes the run', async (env) => {
    const old = await env.engine({ instanceId: 'old-deploy' })
    old.register('w', 1, async (ctx) => {
      const a = await ctx.localStep('first', () => 'a')
      const b = await ctx.step<string>('added-later', a)
      return a + b
    })
    const { runId } = await old.start('w', null)
    await env.settle()
    const parked = await old.getRun(runId)
    assert.equal(parked?.status, 'parked')
    assert.equal(parked?.parkReason?.code, 'E_STEP_NOT_REGISTERED')
    assert.deepEqual(parked?.parkReason?.details, { step: 'added-later', seq: 1 })
    assert.match(
      parked?.parkReason?.message ?? '',
      /step "added-later" \(position 1\) is not registered/,
    )
    assert.equal((await old.getSteps(runId)).length, 1, 'nothing recorded for the missing step')
    await old.close()

    const next = await env.engine({ instanceId: 'new-deploy' })
    next.registerStep('added-later', (input: string) => `${input}+b`)
    next.register('w', 1, async (ctx) => {
      const a = await ctx.localStep('first', () => 'a')
      const b = await ctx.step<string>('added-later', a)
      return a + b
    })
    await env.settle()
    await env.skip(1)
    assert.deepEqual(await next.waitForRun(runId, { timeoutMs: 5_000 }), {
      runId,
      status: 'completed',
      output: 'aa+b',
    })
  })

  test('a local step replaced by a registered step of the same name is non-determinism', async (env) => {
    const v1 = await env.engine({ instanceId: 'deploy-1' })
    v1.register('w', 1, async (ctx) => {
      await ctx.localStep('charge', () => 1)
      await ctx.sleep('1h')
    })
    const { runId } = await v1.start('w', null)
    await env.settle()
    await v1.close()
    const v2 = await env.engine({ instanceId: 'deploy-2' })
    v2.registerStep('charge', () => 1)
    v2.register('w', 1, async (ctx) => {
      await ctx.step('charge', null)
      await ctx.sleep('1h')
    })
    await env.skip(3_600_000)
    await env.settle()
    const run = await v2.getRun(runId)
    assert.equal(run?.status, 'parked')
    assert.equal(run?.parkReason?.code, 'E_NON_DETERMINISM')
    assert.deepEqual(run?.parkReason?.details, {
      recorded: { seq: 0, name: 'charge', kind: 'local' },
      attempted: { seq: 0, name: 'charge', kind: 'step' },
    })
  })

  test('registration checks: a duplicate name, a bad handler or bad options throw at once', async (env) => {
    const engine = await env.engine({ drive: false })
    engine.registerStep('once', () => 1)
    assert.throws(
      () => engine.registerStep('once', () => 2),
      (error: Error & { code?: string }) =>
        error.code === 'E_DUPLICATE_STEP' &&
        /step "once" is already registered/.test(error.message),
    )
    const invalid = (error: Error & { code?: string }) => error.code === 'E_INVALID_ARGUMENT'
    assert.throws(() => engine.registerStep('', () => 1), invalid)
    assert.throws(() => engine.registerStep('no-handler', 'nope' as never), invalid)
    assert.throws(() => engine.registerStep('bad-retries', () => 1, { retries: -1 }), invalid)
    assert.throws(() => engine.registerStep('bad-timeout', () => 1, { timeoutMs: 0 }), invalid)
    assert.throws(
      () => engine.registerStep('misspelt', () => 1, { retry: { retries: 2 } } as never),
      (error: Error & { code?: string }) =>
        invalid(error) && /unknown option "retry"/.test(error.message),
    )
    assert.throws(
      () => engine.registerStep('bad-backoff', () => 1, { backoff: { type: 'linear' as never } }),
      invalid,
    )
  })

  test('a bad call (no name, bad options) throws E_INVALID_ARGUMENT in the workflow', async (env) => {
    const engine = await env.engine()
    engine.registerStep('s', () => 1)
    engine.register('w', 1, async (ctx) => {
      const codes: unknown[] = []
      for (const call of [
        () => ctx.step('', null),
        () => ctx.step('s', null, { timeoutMs: -5 }),
        () => ctx.step('s', null, { retries: 1.5 }),
        () => ctx.step('s', null, 'fast' as never),
      ]) {
        try {
          await call()
        } catch (error) {
          codes.push((error as { code?: string }).code)
        }
      }
      return { codes, after: await ctx.step('s', null) }
    })
    const { runId } = await engine.start('w', null)
    assert.deepEqual(await engine.waitForRun(runId, { timeoutMs: 5_000 }), {
      runId,
      status: 'completed',
      output: { codes: Array(4).fill('E_INVALID_ARGUMENT'), after: 1 },
    })
  })
})
