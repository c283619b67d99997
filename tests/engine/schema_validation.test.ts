/**
 * Standard Schema validation (issue 17, docs/validation.md): a workflow's `inputSchema` checks
 * every start before the run exists — nothing is written for a bad input — and its output value
 * is what the run stores; a step's `input` and `output` schemas run around its handler, in
 * process and on a remote worker alike; a mismatch is E_SCHEMA_VALIDATION, never retried.
 * Schemas from VineJS (what AdonisJS apps have) and a hand-written asynchronous one.
 */
import assert from 'node:assert/strict'
import vine from '@vinejs/vine'
import { z } from 'zod'
import { FatalError, defineStep, systemClock, type StandardSchemaV1 } from '@cairn/core'
import { createMemoryTransport } from '@cairn/core/testing'
import { createWorker } from '@cairn/worker'
import { eachStore } from '../helpers/harness.ts'

const order = vine.compile(
  vine.object({
    sku: vine.string().trim().minLength(1),
    quantity: vine.number().min(1).max(99),
  }),
)

/** An asynchronous schema of our own: a positive integer, answered after a timer. */
const positive: StandardSchemaV1<unknown, number> = {
  '~standard': {
    version: 1,
    vendor: 'test',
    validate: async (value) => {
      await new Promise((resolve) => setTimeout(resolve, 1))
      return Number.isInteger(value) && (value as number) > 0
        ? { value: value as number }
        : { issues: [{ message: 'must be a positive integer', path: [] }] }
    },
  },
}

const throwing: StandardSchemaV1 = {
  '~standard': {
    version: 1,
    vendor: 'test',
    validate: () => {
      throw new Error('refinement crashed')
    },
  },
}

interface Refusal {
  code: string
  details: {
    workflow?: string
    issues: Array<{ message: string; path: Array<string | number> }>
  }
}

async function failure(call: Promise<unknown>): Promise<Refusal> {
  return call.then(
    () => assert.fail('expected a rejection'),
    (error: { code: string; details: unknown }) => error as never,
  )
}

const only = (name: string) => name === 'memory' || name === 'sqlite'

eachStore('schema validation', (each) => {
  // Not about stores: the in-process one and one SQL store are enough.
  const test = (name: string, fn: Parameters<typeof each>[1]) => each(name, fn, only)

  test('inputSchema: a bad start writes nothing; a good one stores the schema’s value', async (env) => {
    const engine = await env.engine()
    engine.register('ship', 1, async (_ctx, input: { sku: string }) => input.sku, {
      inputSchema: order,
    })
    const bad = await failure(engine.start('ship', { sku: '', quantity: 500 }, { runId: 'bad' }))
    assert.equal(bad.code, 'E_SCHEMA_VALIDATION')
    assert.equal(bad.details.workflow, 'ship')
    assert.deepEqual(
      bad.details.issues.map((i: { path: unknown[] }) => i.path),
      [['sku'], ['quantity']],
    )
    assert.equal(await engine.getRun('bad'), null, 'no run was created')
    assert.match((bad as unknown as Error).message, /input of workflow "ship" does not match/)
    await engine.start('ship', { sku: '  mug  ', quantity: 2 }, { runId: 'good' })
    const run = await engine.getRun('good')
    assert.deepEqual(run?.input, { sku: 'mug', quantity: 2 }, 'trimmed once, stored trimmed')
    assert.equal((await engine.waitForRun('good', { timeoutMs: 5_000 })).status, 'completed')
    // A resubmit of the same start (untrimmed) is the same run, not a conflict.
    const again = await engine.start('ship', { sku: '  mug  ', quantity: 2 }, { runId: 'good' })
    assert.equal(again.runId, 'good')
  })

  test('inputSchema on a child: the parent’s call fails, no child run exists', async (env) => {
    const engine = await env.engine()
    engine.register('ship', 1, async (_ctx, input: { sku: string }) => input.sku, {
      inputSchema: order,
    })
    engine.register('batch', 1, async (ctx) => {
      try {
        await ctx.child('ship', { sku: 'x', quantity: 0 }, { childId: 'child-1' })
        return 'started'
      } catch (error) {
        const { code, cause } = error as { code: string; cause?: { code?: string } }
        return `${code} ${cause?.code}`
      }
    })
    const { runId } = await engine.start('batch', null)
    const outcome = await engine.waitForRun(runId, { timeoutMs: 5_000 })
    assert.deepEqual(outcome, {
      runId,
      status: 'completed',
      output: 'E_CHILD_FAILED E_SCHEMA_VALIDATION',
    })
    assert.equal(await engine.getRun('child-1'), null)
  })

  test('step schemas: a bad input never reaches the handler; a bad output is not recorded; neither retries', async (env) => {
    const engine = await env.engine()
    const calls: unknown[] = []
    const reserve = defineStep(
      'reserve',
      async (input) => {
        calls.push(input)
        return input.quantity > 10 ? -1 : input.quantity
      },
      { input: order, output: positive, retries: 3 },
    )
    engine.registerStep(reserve)
    engine.register('run', 1, async (ctx, input: { sku: string; quantity: number }) => {
      try {
        return await ctx.step(reserve, input)
      } catch (error) {
        const { code, details } = error as { code: string; details: { step: string } }
        return `${code} ${details.step}`
      }
    })
    const ok = await engine.start('run', { sku: ' cup ', quantity: 3 })
    assert.deepEqual(await engine.waitForRun(ok.runId, { timeoutMs: 5_000 }), {
      runId: ok.runId,
      status: 'completed',
      output: 3,
    })
    assert.deepEqual(calls, [{ sku: 'cup', quantity: 3 }], 'the handler got the schema’s value')
    const badIn = await engine.start('run', { sku: 'cup', quantity: 0 })
    const inOutcome = await engine.waitForRun(badIn.runId, { timeoutMs: 5_000 })
    assert.equal(
      inOutcome.status === 'completed' && inOutcome.output,
      'E_SCHEMA_VALIDATION reserve',
    )
    assert.equal(calls.length, 1, 'a bad input never ran the handler')
    const badOut = await engine.start('run', { sku: 'cup', quantity: 50 })
    const outOutcome = await engine.waitForRun(badOut.runId, { timeoutMs: 5_000 })
    assert.equal(
      outOutcome.status === 'completed' && outOutcome.output,
      'E_SCHEMA_VALIDATION reserve',
    )
    assert.equal(calls.length, 2, 'one attempt only: a schema mismatch is never retried')
    const [step] = (await engine.getSteps(badOut.runId)).filter((s) => s.name === 'reserve')
    assert.equal(step?.attempts, 1)
    assert.equal(step?.error?.code, 'E_SCHEMA_VALIDATION')
  })

  test('a schema that throws rejects the value; a non-schema is refused at registration', async (env) => {
    const engine = await env.engine()
    engine.register('w', 1, async () => 'ran', { inputSchema: throwing })
    const thrown = await failure(engine.start('w', 1))
    assert.equal(thrown.code, 'E_SCHEMA_VALIDATION')
    assert.match(thrown.details.issues[0]?.message ?? '', /the schema threw: refinement crashed/)
    assert.throws(() => engine.register('x', 1, async () => 1, { inputSchema: {} as never }), {
      code: 'E_INVALID_ARGUMENT',
    })
    assert.throws(() => engine.registerStep('s', () => 1, { output: 'json' as never }), {
      code: 'E_INVALID_ARGUMENT',
    })
    assert.throws(
      () => engine.register('y', 1, async () => 1, { validateInput: () => true } as never),
      /validateInput.*inputSchema/,
    )
  })

  test('a remote step validates on the worker, where its handler runs', async (env) => {
    const transport = createMemoryTransport()
    const engine = await env.engine({
      transports: { memory: transport.engine() },
      clock: systemClock,
    })
    const pack = defineStep('pack', (input: number) => input * 2, {
      input: positive,
      output: positive,
      transport: 'memory',
      retries: 3,
    })
    engine.registerStep(pack)
    engine.register('remote', 1, async (ctx, n: number) => {
      try {
        return await ctx.step(pack, n)
      } catch (error) {
        return (error as { code: string }).code
      }
    })
    const worker = createWorker({ transport: transport.worker(), steps: [pack] })
    await worker.start()
    try {
      const good = await engine.start('remote', 4)
      const bad = await engine.start('remote', -4)
      assert.deepEqual(await engine.waitForRun(good.runId, { timeoutMs: 10_000 }), {
        runId: good.runId,
        status: 'completed',
        output: 8,
      })
      assert.deepEqual(await engine.waitForRun(bad.runId, { timeoutMs: 10_000 }), {
        runId: bad.runId,
        status: 'completed',
        output: 'E_SCHEMA_VALIDATION',
      })
      const [packed] = await engine.getSteps(bad.runId)
      assert.equal(packed?.attempts, 1, 'a mismatch on the worker is not retried either')
    } finally {
      await worker.close(100)
    }
  })

  test('Zod: the same through another library, with the handler typed from the schema', async (env) => {
    const engine = await env.engine()
    const label = z.object({ name: z.string().min(1), copies: z.number().int().default(1) })
    const print = defineStep(
      'print',
      // `input` is typed from the schema: its output type, `copies` filled in.
      async (input) => `${input.name.toUpperCase()} x${input.copies}`,
      { input: label, output: z.string().max(20) },
    )
    engine.registerStep(print)
    engine.register(
      'labels',
      1,
      async (ctx, input: { name: string; copies?: number }) => {
        try {
          return await ctx.step(print, input)
        } catch (error) {
          return (error as { code: string }).code
        }
      },
      { inputSchema: z.object({ name: z.string(), copies: z.number().optional() }) },
    )
    const ok = await engine.start('labels', { name: 'box' })
    assert.deepEqual(await engine.waitForRun(ok.runId, { timeoutMs: 5_000 }), {
      runId: ok.runId,
      status: 'completed',
      output: 'BOX x1',
    })
    const long = await engine.start('labels', { name: 'a-very-long-label-name' })
    const longOutcome = await engine.waitForRun(long.runId, { timeoutMs: 5_000 })
    assert.equal(longOutcome.status === 'completed' && longOutcome.output, 'E_SCHEMA_VALIDATION')
    const refused = await failure(engine.start('labels', { name: 7 }))
    assert.equal(refused.code, 'E_SCHEMA_VALIDATION')
    assert.deepEqual(refused.details.issues[0]?.path, ['name'])
  })

  test('a resubmit of an accepted start is answered with its run, whatever a rule of the world says now', async (env) => {
    const engine = await env.engine()
    const taken = new Set<string>()
    const unique: StandardSchemaV1<{ email: string }> = {
      '~standard': {
        version: 1,
        vendor: 'test',
        validate: async (v) =>
          taken.has((v as { email: string }).email)
            ? { issues: [{ message: 'email already taken', path: ['email'] }] }
            : { value: v as { email: string } },
      },
    }
    engine.register(
      'signup',
      1,
      async (ctx, input: { email: string }) => {
        await ctx.localStep('create-user', () => void taken.add(input.email))
        return 'ok'
      },
      { inputSchema: unique },
    )
    await engine.start('signup', { email: 'a@b.c' }, { runId: 'signup-a' })
    await engine.waitForRun('signup-a', { timeoutMs: 5_000 })
    const again = await engine.start('signup', { email: 'a@b.c' }, { runId: 'signup-a' })
    assert.deepEqual(again, { runId: 'signup-a', existing: true })
    const other = await failure(engine.start('signup', { email: 'a@b.c' }, { runId: 'signup-b' }))
    assert.equal(other.code, 'E_SCHEMA_VALIDATION', 'a new start is still checked')
  })

  test('a requeued parent finds its ended child even when the child’s schema changed meanwhile', async (env) => {
    const engine = await env.engine()
    let broken = true
    let stricter = false // the deploy that fixed the parent also changed the child's schema
    const kidInput = z
      .object({ sku: z.string() })
      .transform((v) => (stricter ? { ...v, quantity: 1 } : v))
    engine.register('kid', 1, async (ctx) => ctx.waitForSignal<string>('go'), {
      inputSchema: kidInput,
    })
    engine.register('mom', 1, async (ctx) => {
      const kid = ctx.startChild<string>('kid', { sku: 'a' })
      await ctx.localStep(
        'boom',
        () => {
          if (broken) throw new FatalError('broken')
          return 1
        },
        { retries: 0 },
      )
      return kid.result()
    })
    await engine.start('mom', null, { runId: 'mom' })
    assert.equal((await engine.waitForRun('mom', { timeoutMs: 5_000 })).status, 'failed')
    await engine.signal({ runId: 'mom/0', name: 'go' }, 'kid-result')
    await engine.waitForRun('mom/0', { timeoutMs: 5_000 })
    broken = false
    stricter = true
    await engine.requeue('mom')
    assert.deepEqual(await engine.waitForRun('mom', { timeoutMs: 5_000 }), {
      runId: 'mom',
      status: 'completed',
      output: 'kid-result',
    })
  })

  test('a schema that answers nonsense rejects the value', async (env) => {
    const engine = await env.engine()
    const schemaAnswering = (answer: unknown) =>
      ({
        '~standard': { version: 1, vendor: 'test', validate: () => answer },
      }) as unknown as StandardSchemaV1
    const answers = [
      { value: 1, issues: null },
      undefined,
      { issues: [null, { message: Object.create(null), path: 'a.0' }] },
    ]
    for (const [i, answer] of answers.entries()) {
      engine.register(`w${i}`, 1, async () => 'ran', { inputSchema: schemaAnswering(answer) })
      const refused = await failure(engine.start(`w${i}`, 1))
      assert.equal(refused.code, 'E_SCHEMA_VALIDATION', JSON.stringify(answer))
    }
  })

  test('retryWithInput and fork check a new input against the workflow’s schema', async (env) => {
    const engine = await env.engine()
    engine.register('ship', 1, async (_ctx, input: { sku: string }) => input.sku, {
      inputSchema: z.object({ sku: z.string().trim().min(1) }),
    })
    await engine.start('ship', { sku: ' mug ' }, { runId: 'first' })
    await engine.waitForRun('first', { timeoutMs: 5_000 })
    const refused = await failure(engine.retryWithInput('first', { sku: 42 }))
    assert.equal(refused.code, 'E_SCHEMA_VALIDATION')
    const forked = await failure(engine.fork('first', { fromSeq: 0, input: { sku: '' } }))
    assert.equal(forked.code, 'E_SCHEMA_VALIDATION')
    const retried = await engine.retryWithInput('first', { sku: ' cup ' })
    assert.deepEqual((await engine.getRun(retried.runId))?.input, { sku: 'cup' })
  })
})
