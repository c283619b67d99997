import assert from 'node:assert/strict'
import { InvalidArgumentError, type WorkflowContext } from '@cairn/core'
import type { StandardSchemaIssue, StandardSchemaV1 } from '@cairn/core/contracts'
import { eachStore } from '../helpers/harness.ts'

/** A hand-written Standard Schema (no schema library in the lockfile): `amount`, if present, is a number >= 0. */
function amountSchema(mode: 'sync' | 'async', calls: { count: number }): StandardSchemaV1 {
  return {
    '~standard': {
      version: 1,
      vendor: 'cairn-test',
      validate(value) {
        calls.count += 1
        const amount = (value as Record<string, unknown>).amount
        const issues: StandardSchemaIssue[] =
          amount === undefined || (typeof amount === 'number' && amount >= 0)
            ? []
            : [{ message: 'must be a number >= 0', path: [{ key: 'amount' }] }]
        const result = issues.length > 0 ? { issues } : { value }
        return mode === 'async' ? Promise.resolve(result) : result
      },
    },
  }
}

/** Runs `attempt` in a workflow and returns what it threw (code and details), or 'stored'. */
async function thrownBy(ctx: WorkflowContext, attempt: () => Promise<void>) {
  try {
    await attempt()
    return 'stored'
  } catch (error) {
    const { code, details } = error as InvalidArgumentError
    return { code, details, is: InvalidArgumentError.is(error) }
  }
}

eachStore('search attributes', (test) => {
  test('upserted attributes are shown and found by listRuns filters, with status and workflow', async (env) => {
    const engine = await env.engine()
    const placed = new Date('2026-03-01T12:00:00.000Z')
    engine.register('order', 1, async (ctx, input: { customer: string; amount: number }) => {
      await ctx.upsertSearchAttributes({ customer: input.customer, amount: input.amount })
      await ctx.upsertSearchAttributes({ placedAt: placed, express: input.amount > 100 })
      await ctx.upsertSearchAttributes({ express: null })
      if (input.amount > 100) await ctx.sleep('1h')
      return 'done'
    })
    const small = await engine.start('order', { customer: 'acme', amount: 20 })
    const big = await engine.start('order', { customer: 'acme', amount: 500 })
    const other = await engine.start('order', { customer: 'globex', amount: 300 })
    await engine.waitForRun(small.runId, { timeoutMs: 5_000 })
    await env.settle()

    const run = await engine.getRun(big.runId)
    assert.deepEqual(run?.searchAttributes, { customer: 'acme', amount: 500, placedAt: placed })
    assert.ok(run?.searchAttributes.placedAt instanceof Date, 'a time comes back as a Date')

    const ids = async (query: Parameters<typeof engine.listRuns>[0]) =>
      (await engine.listRuns(query)).runs.map((r) => r.id)
    assert.deepEqual(await ids({ searchAttributes: { customer: 'acme' } }), [
      big.runId,
      small.runId,
    ])
    assert.deepEqual(await ids({ searchAttributes: { customer: 'acme', amount: { gt: 100 } } }), [
      big.runId,
    ])
    assert.deepEqual(await ids({ searchAttributes: { amount: { gte: 20, lt: 500 } } }), [
      other.runId,
      small.runId,
    ])
    assert.deepEqual(await ids({ searchAttributes: { placedAt: { lte: placed } } }), [
      other.runId,
      big.runId,
      small.runId,
    ])
    assert.deepEqual(await ids({ searchAttributes: { express: true } }), [], 'removed by null')
    assert.deepEqual(
      await ids({ status: 'waiting', searchAttributes: { customer: { ne: 'globex' } } }),
      [big.runId],
    )
    assert.deepEqual(await ids({ workflow: 'nope', searchAttributes: { customer: 'acme' } }), [])
    const listed = await engine.listRuns({ searchAttributes: { customer: 'globex' } })
    assert.deepEqual(listed.runs[0]?.searchAttributes, {
      customer: 'globex',
      amount: 300,
      placedAt: placed,
    })
  })

  test('a replay after a restart writes nothing again: the recorded values stay', async (env) => {
    let executions = 0
    const body = async (ctx: WorkflowContext) => {
      executions += 1
      // Deliberately non-deterministic: a replay that wrote again would store 2.
      await ctx.upsertSearchAttributes({ execution: executions, stage: 'sleeping' })
      await ctx.sleep('1h')
      await ctx.upsertSearchAttributes({ stage: 'done' })
      return executions
    }
    const first = await env.engine()
    first.register('replayed', 1, body)
    const { runId } = await first.start('replayed', null)
    await env.settle()
    assert.deepEqual((await first.getRun(runId))?.searchAttributes, {
      execution: 1,
      stage: 'sleeping',
    })
    await first.close()
    const second = await env.engine()
    second.register('replayed', 1, body)
    await env.skip(3_600_000)
    assert.deepEqual(await second.waitForRun(runId, { timeoutMs: 5_000 }), {
      runId,
      status: 'completed',
      output: 2,
    })
    assert.equal(executions, 2, 'the body ran again (replayed) on the second engine')
    assert.deepEqual((await second.getRun(runId))?.searchAttributes, {
      execution: 1,
      stage: 'done',
    })
    const kinds = (await second.getSteps(runId)).map((s) => s.kind)
    assert.deepEqual(kinds, ['search_attrs', 'sleep', 'search_attrs'])
    const found = await second.listRuns({ searchAttributes: { execution: 1, stage: 'done' } })
    assert.deepEqual(
      found.runs.map((r) => r.id),
      [runId],
    )
  })

  test('a synchronous schema rejection throws a structured error at the call and stores nothing', async (env) => {
    const engine = await env.engine()
    const calls = { count: 0 }
    engine.register(
      'checked',
      1,
      async (ctx) => {
        const rejected = await thrownBy(ctx, () => ctx.upsertSearchAttributes({ amount: -5 }))
        await ctx.upsertSearchAttributes({ amount: 7 })
        return rejected
      },
      { searchAttributes: amountSchema('sync', calls) },
    )
    const { runId } = await engine.start('checked', null)
    const outcome = await engine.waitForRun(runId, { timeoutMs: 5_000 })
    assert.deepEqual((outcome as { output?: unknown }).output, {
      code: 'E_INVALID_ARGUMENT',
      is: true,
      details: {
        reason: 'schema',
        issues: [{ message: 'must be a number >= 0', path: ['amount'] }],
      },
    })
    assert.equal(calls.count, 2)
    const steps = await engine.getSteps(runId)
    assert.deepEqual(
      steps.map((s) => [s.kind, s.status]),
      [['search_attrs', 'completed']],
      'the rejected call took no position',
    )
    assert.deepEqual((await engine.getRun(runId))?.searchAttributes, { amount: 7 })
  })

  test('an asynchronous schema rejection is recorded as the call failure, without attributes', async (env) => {
    const engine = await env.engine()
    const calls = { count: 0 }
    const body = async (ctx: WorkflowContext) => {
      const rejected = await thrownBy(ctx, () => ctx.upsertSearchAttributes({ amount: -1 }))
      await ctx.upsertSearchAttributes({ amount: 3 })
      await ctx.sleep('1h')
      return rejected
    }
    engine.register('checked', 1, body, { searchAttributes: amountSchema('async', calls) })
    const { runId } = await engine.start('checked', null)
    await env.settle()
    assert.equal(calls.count, 2)
    await env.skip(3_600_000)
    const outcome = await engine.waitForRun(runId, { timeoutMs: 5_000 })
    assert.deepEqual((outcome as { output?: unknown }).output, {
      code: 'E_INVALID_ARGUMENT',
      is: true,
      details: {
        reason: 'schema',
        issues: [{ message: 'must be a number >= 0', path: ['amount'] }],
      },
    })
    assert.equal(calls.count, 2, 'recorded positions are not validated again on replay')
    const steps = await engine.getSteps(runId)
    assert.deepEqual(
      steps.map((s) => [s.kind, s.status]),
      [
        ['search_attrs', 'failed'],
        ['search_attrs', 'completed'],
        ['sleep', 'completed'],
      ],
    )
    assert.deepEqual((await engine.getRun(runId))?.searchAttributes, { amount: 3 })
    const negative = await engine.listRuns({ searchAttributes: { amount: { lt: 0 } } })
    assert.deepEqual(negative.runs, [])
  })

  test('bad names and values throw E_INVALID_ARGUMENT in the workflow and record nothing', async (env) => {
    const engine = await env.engine()
    const bad: unknown[] = [
      { '': 1 },
      { 'has space': 1 },
      { '9lives': 1 },
      { ['x'.repeat(65)]: 1 },
      { n: Number.NaN },
      { n: Number.POSITIVE_INFINITY },
      { d: new Date(Number.NaN) },
      { s: 'y'.repeat(257) },
      { s: 'nul\u0000' },
      { s: '\ud800' },
      { o: { nested: true } },
      { a: [1] },
      { u: undefined },
      'not an object',
      null,
    ]
    engine.register('bad', 1, async (ctx) => {
      const codes: unknown[] = []
      for (const attributes of bad) {
        const thrown = await thrownBy(ctx, () =>
          ctx.upsertSearchAttributes(attributes as Record<string, string>),
        )
        codes.push(typeof thrown === 'string' ? thrown : thrown.code)
      }
      return codes
    })
    const { runId } = await engine.start('bad', null)
    const outcome = await engine.waitForRun(runId, { timeoutMs: 5_000 })
    assert.deepEqual(
      (outcome as { output?: unknown }).output,
      bad.map(() => 'E_INVALID_ARGUMENT'),
    )
    assert.deepEqual(await engine.getSteps(runId), [])
    assert.deepEqual((await engine.getRun(runId))?.searchAttributes, {})
  })

  test('a Date round-trips to the millisecond and compares as a time, not as text or number', async (env) => {
    const engine = await env.engine()
    const at = new Date(Date.UTC(2031, 0, 2, 3, 4, 5, 678))
    engine.register('dated', 1, async (ctx) => {
      await ctx.upsertSearchAttributes({ due: at, label: at.toISOString(), ms: at.getTime() })
    })
    const { runId } = await engine.start('dated', null)
    await engine.waitForRun(runId, { timeoutMs: 5_000 })
    const attributes = (await engine.getRun(runId))?.searchAttributes ?? {}
    assert.ok(attributes.due instanceof Date)
    assert.equal((attributes.due as Date).getTime(), at.getTime())
    assert.equal(attributes.label, at.toISOString())
    assert.equal(attributes.ms, at.getTime())
    const count = async (filter: Record<string, unknown>) =>
      (await engine.listRuns({ searchAttributes: filter as never })).runs.length
    assert.equal(await count({ due: at }), 1)
    assert.equal(await count({ due: { gt: new Date(at.getTime() - 1) } }), 1)
    assert.equal(await count({ due: { gt: at } }), 0)
    assert.equal(await count({ due: at.getTime() }), 0, 'a number does not match a time')
    assert.equal(await count({ ms: at }), 0, 'a time does not match a number')
    assert.equal(await count({ label: at }), 0, 'a time does not match text')
  })

  test('parallel upserts of one name: the later call wins, on every replay too', async (env) => {
    const engine = await env.engine()
    engine.register('parallel', 1, async (ctx) => {
      await Promise.all([
        ctx.upsertSearchAttributes({ stage: 'first', a: 1 }),
        ctx.upsertSearchAttributes({ stage: 'second', b: 2 }),
        ctx.localStep('work', () => 'done'),
      ])
      await ctx.sleep('1h')
    })
    const { runId } = await engine.start('parallel', null)
    await env.skip(3_600_000)
    await engine.waitForRun(runId, { timeoutMs: 5_000 })
    assert.deepEqual((await engine.getRun(runId))?.searchAttributes, {
      stage: 'second',
      a: 1,
      b: 2,
    })
  })

  test('a schema whose promise rejects rejects the call and stores nothing', async (env) => {
    const engine = await env.engine()
    const failing: StandardSchemaV1 = {
      '~standard': {
        version: 1,
        vendor: 'cairn-test',
        validate: () => Promise.reject(new Error('schema service down')),
      },
    }
    engine.register(
      'failing',
      1,
      async (ctx) => {
        try {
          await ctx.upsertSearchAttributes({ x: 1 })
          return 'stored'
        } catch (error) {
          return (error as Error).message
        }
      },
      { searchAttributes: failing },
    )
    const { runId } = await engine.start('failing', null)
    const outcome = await engine.waitForRun(runId, { timeoutMs: 5_000 })
    assert.equal((outcome as { output?: unknown }).output, 'schema service down')
    assert.deepEqual((await engine.getRun(runId))?.searchAttributes, {})
  })

  test('a workflow option that is not a Standard Schema is refused at registration', async (env) => {
    const engine = await env.engine()
    assert.throws(
      () =>
        engine.register('x', 1, async () => {}, {
          searchAttributes: { validate: () => true } as never,
        }),
      InvalidArgumentError.is,
    )
  })
})
