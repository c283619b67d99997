import assert from 'node:assert/strict'
import { eachStore, type Env } from '../helpers/harness.ts'

eachStore('engine basics', (test) => {
  test('runs local steps in order and records each once with dense positions', async (env) => {
    const engine = await env.engine()
    const ran: string[] = []
    engine.register('three', 1, async (ctx, input: { n: number }) => {
      const a = await ctx.localStep('a', () => (ran.push('a'), input.n + 1))
      const b = await ctx.localStep('b', () => (ran.push('b'), a * 2))
      const c = await ctx.localStep('c', () => (ran.push('c'), { total: b, at: new Date(0) }))
      return c
    })
    const { runId, existing } = await engine.start('three', { n: 1 })
    assert.equal(existing, false)
    const outcome = await engine.waitForRun(runId, { timeoutMs: 5_000 })
    assert.deepEqual(outcome, { runId, status: 'completed', output: { total: 4, at: new Date(0) } })
    assert.deepEqual(ran, ['a', 'b', 'c'])
    const steps = await engine.getSteps(runId)
    assert.deepEqual(
      steps.map((s) => [s.seq, s.name, s.kind, s.status, s.attempts]),
      [
        [0, 'a', 'local', 'completed', 1],
        [1, 'b', 'local', 'completed', 1],
        [2, 'c', 'local', 'completed', 1],
      ],
    )
    const run = await engine.getRun(runId)
    assert.equal(run?.status, 'completed')
    assert.equal(run?.version, '1')
    assert.deepEqual(run?.input, { n: 1 })
  })

  test('start is idempotent by run id; a different input under the same id is an error', async (env) => {
    const engine = await env.engine()
    let bodies = 0
    engine.register('once', 1, async (ctx, x: number) => ctx.localStep('s', () => (bodies++, x)))
    const first = await engine.start('once', 7, { runId: 'order-42' })
    const again = await engine.start('once', 7, { runId: 'order-42' })
    assert.deepEqual(again, { runId: 'order-42', existing: true })
    assert.equal(first.existing, false)
    await assert.rejects(engine.start('once', 8, { runId: 'order-42' }), {
      code: 'E_RUN_ID_CONFLICT',
    })
    await engine.waitForRun('order-42', { timeoutMs: 5_000 })
    assert.equal(bodies, 1)
    const page = await engine.listRuns()
    assert.equal(page.runs.length, 1)
  })

  test('a run started by a process that does not drive is executed by one that does', async (env) => {
    const client = await env.engine({ drive: false })
    client.register('w', 1, async (ctx) => ctx.localStep('s', () => 'client should not run this'))
    const { runId } = await client.start('w', null)
    assert.equal((await client.getRun(runId))?.status, 'pending')
    const worker = await env.engine()
    worker.register('w', 1, async (ctx) => ctx.localStep('s', () => 'done by worker'))
    await env.skip(60_000) // the worker's safety-net poll
    const outcome = await worker.waitForRun(runId, { timeoutMs: 5_000 })
    assert.deepEqual(outcome, { runId, status: 'completed', output: 'done by worker' })
  })

  test('listRuns filters by workflow and status, newest first, with cursor pages', async (env) => {
    const engine = await env.engine()
    engine.register('a', 1, async () => 'a')
    engine.register('b', 1, async () => 'b')
    assert.deepEqual(engine.registeredWorkflows(), [
      { workflow: 'a', version: '1' },
      { workflow: 'b', version: '1' },
    ])
    const ids: string[] = []
    for (let i = 0; i < 5; i++) {
      ids.push((await engine.start('a', i, { runId: `a-${i}` })).runId)
      await env.skip(1)
    }
    await engine.start('b', 0, { runId: 'b-0' })
    for (const id of ids) await engine.waitForRun(id, { timeoutMs: 5_000 })
    const first = await engine.listRuns({ workflow: 'a', status: 'completed', limit: 2 })
    assert.deepEqual(
      first.runs.map((r) => r.id),
      ['a-4', 'a-3'],
    )
    const second = await engine.listRuns({ workflow: 'a', limit: 2, cursor: first.nextCursor! })
    assert.deepEqual(
      second.runs.map((r) => r.id),
      ['a-2', 'a-1'],
    )
    const third = await engine.listRuns({ workflow: 'a', limit: 2, cursor: second.nextCursor! })
    assert.deepEqual(
      third.runs.map((r) => r.id),
      ['a-0'],
    )
    assert.equal(third.nextCursor, null)
    await assert.rejects(engine.listRuns({ cursor: 'forged' }), { code: 'E_INVALID_CURSOR' })
  })

  test('waitForRun times out with E_WAIT_TIMEOUT and the run goes on; unknown runs are E_RUN_NOT_FOUND', async (env) => {
    const engine = await env.engine()
    engine.register('slow', 1, async (ctx) => {
      await ctx.sleep('1h')
      return 'late'
    })
    const { runId } = await engine.start('slow', null)
    await assert.rejects(engine.waitForRun(runId, { timeoutMs: 30 }), { code: 'E_WAIT_TIMEOUT' })
    await assert.rejects(engine.waitForRun('nope', { timeoutMs: 30 }), { code: 'E_RUN_NOT_FOUND' })
    await env.skip(3_600_000)
    assert.deepEqual(await engine.waitForRun(runId, { timeoutMs: 5_000 }), {
      runId,
      status: 'completed',
      output: 'late',
    })
  })

  test('ctx.now() is deterministic: the run creation time, then each recorded result time', async (env) => {
    // Replayed (no run cache): the replay after the sleep sees the creation time again.
    const replayed = await nowsAcrossSleep(env, 0)
    assert.deepEqual(replayed.seen, [
      replayed.created,
      replayed.created,
      replayed.created + 600_000,
    ])
    // Resumed from the run cache: no replay, the same times.
    const resumed = await nowsAcrossSleep(env, 1_000)
    assert.deepEqual(resumed.seen, [resumed.created, resumed.created + 600_000])
  })
})

async function nowsAcrossSleep(
  env: Env,
  maxCachedRuns: number,
): Promise<{ seen: number[]; created: number }> {
  const engine = await env.engine({ maxCachedRuns })
  const seen: number[] = []
  const workflow = `clock-${maxCachedRuns}`
  engine.register(workflow, 1, async (ctx) => {
    seen.push(ctx.now().getTime())
    await ctx.sleep('10m')
    seen.push(ctx.now().getTime())
    return seen.slice()
  })
  const created = env.clock.now()
  const { runId } = await engine.start(workflow, null)
  await env.skip(600_000)
  const outcome = await engine.waitForRun<number[]>(runId, { timeoutMs: 5_000 })
  assert.equal(outcome.status, 'completed')
  await engine.close()
  return { seen, created }
}
