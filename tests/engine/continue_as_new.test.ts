import assert from 'node:assert/strict'
import { CancelledError, type Engine, type RunInfo, type WorkflowContext } from '@cairn/core'
import { eachStore } from '../helpers/harness.ts'

function output(outcome: unknown): unknown {
  return (outcome as { output?: unknown }).output
}

/** Counts to `until` with one step per run, continuing as new after each. */
function registerCounter(engine: Engine, executed: number[]) {
  engine.register('counter', 1, async (ctx, state: { n: number; until: number }) => {
    const n = await ctx.localStep('tick', () => {
      executed.push(state.n)
      return state.n + 1
    })
    if (n >= state.until) return { total: n, runId: ctx.runId }
    return ctx.continueAsNew({ n, until: state.until })
  })
}

/** Every run of the chain starting at `runId`, oldest first. */
async function chain(engine: Engine, runId: string): Promise<RunInfo[]> {
  const runs: RunInfo[] = []
  for (let id: string | null = runId; id !== null;) {
    const run: RunInfo | null = await engine.getRun(id)
    assert.ok(run !== null, `run ${id} exists`)
    runs.push(run)
    id = run.continuedTo
  }
  return runs
}

eachStore('continueAsNew', (test) => {
  test('a run continues as new into a visible chain; waitForRun follows it to the final result', async (env) => {
    const engine = await env.engine()
    const executed: number[] = []
    registerCounter(engine, executed)
    const { runId } = await engine.start('counter', { n: 0, until: 4 })
    const outcome = await engine.waitForRun(runId, { timeoutMs: 5_000 })
    const runs = await chain(engine, runId)
    assert.equal(runs.length, 4)
    const last = runs.at(-1)!
    assert.deepEqual(output(outcome), { total: 4, runId: last.id })
    assert.equal(outcome.runId, last.id, 'the outcome names the run that finished')
    assert.deepEqual(
      runs.map((r) => r.status),
      ['continued', 'continued', 'continued', 'completed'],
    )
    assert.equal(runs[0]!.continuedFrom, null)
    for (let i = 1; i < runs.length; i++) {
      assert.equal(runs[i]!.continuedFrom, runs[i - 1]!.id)
      assert.deepEqual(runs[i]!.input, { n: i, until: 4 })
    }
    assert.deepEqual(executed, [0, 1, 2, 3], 'each step ran once')
    // Each run keeps only its own history: one step.
    for (const run of runs) assert.equal((await engine.getSteps(run.id)).length, 1)
  })

  test("a parent waiting on a child that continues as new gets the chain's final result", async (env) => {
    const engine = await env.engine()
    registerCounter(engine, [])
    engine.register('parent', 1, async (ctx: WorkflowContext) => {
      const result = await ctx.child<{ total: number }>('counter', { n: 0, until: 3 })
      return result.total * 10
    })
    const { runId } = await engine.start('parent', null)
    assert.equal(output(await engine.waitForRun(runId, { timeoutMs: 5_000 })), 30)
    const children = await engine.listRuns({ parentRunId: runId })
    assert.deepEqual(children.runs.map((r) => r.status).sort(), [
      'completed',
      'continued',
      'continued',
    ])
  })

  test('signals a run did not receive move to its successor in order; later ones follow the chain', async (env) => {
    const engine = await env.engine()
    engine.register('inbox', 1, async (ctx, state: { got: string[]; generation: number }) => {
      const got = [...state.got, await ctx.waitForSignal<string>('item')]
      if (state.generation === 0) {
        // Signals sent while this run waits on its breakpoint are not received here.
        await ctx.breakpoint('hold')
        return ctx.continueAsNew({ got, generation: 1 })
      }
      if (got.length < 5) return ctx.continueAsNew({ got, generation: state.generation + 1 })
      return got
    })
    const { runId } = await engine.start('inbox', { got: [], generation: 0 })
    await engine.signal({ runId, name: 'item' }, 'a', { signalId: 's-a' })
    await env.settle()
    for (const item of ['b', 'c', 'd']) {
      await engine.signal({ runId, name: 'item' }, item, { signalId: `s-${item}` })
    }
    await engine.continue(runId)
    await env.settle()
    assert.equal((await engine.getRun(runId))?.status, 'continued')
    // Sent to the first run of the chain: reaches the latest, after the adopted ones.
    const receipt = await engine.signal({ runId, name: 'item' }, 'e', { signalId: 's-e' })
    assert.notEqual(receipt.runId, runId)
    // A resend of a signal the first run accepted is still a duplicate.
    const resent = await engine.signal({ runId, name: 'item' }, 'b', { signalId: 's-b' })
    assert.equal(resent.duplicate, true)
    const outcome = await engine.waitForRun(runId, { timeoutMs: 5_000 })
    assert.deepEqual(output(outcome), ['a', 'b', 'c', 'd', 'e'])
  })

  test('cancelling a run that continued cancels the latest run of its chain', async (env) => {
    const engine = await env.engine()
    engine.register('looper', 1, async (ctx, generation: number) => {
      if (generation < 2) return ctx.continueAsNew(generation + 1)
      await ctx.sleep('1d')
      return 'slept'
    })
    const { runId } = await engine.start('looper', 0)
    await env.settle()
    const runs = await chain(engine, runId)
    assert.equal(runs.length, 3)
    assert.equal(runs.at(-1)!.status, 'waiting')
    await engine.cancel(runId, { reason: 'stop the loop' })
    const last = await engine.getRun(runs.at(-1)!.id)
    assert.equal(last?.status, 'cancelled')
    const outcome = await engine.waitForRun(runId, { timeoutMs: 5_000 })
    assert.equal(outcome.status, 'cancelled')
    assert.equal(outcome.runId, last?.id)
  })

  test('a successor runs the newest registered version', async (env) => {
    const engine = await env.engine()
    engine.register('upgrade', 1, async (ctx) => ctx.continueAsNew('from v1'))
    engine.register('upgrade', 2, async (ctx, input: string) => `v2 got ${input}`)
    const { runId } = await engine.start('upgrade', null, { version: 1 })
    const outcome = await engine.waitForRun(runId, { timeoutMs: 5_000 })
    assert.equal(output(outcome), 'v2 got from v1')
    const [first, second] = await chain(engine, runId)
    assert.deepEqual([first?.version, second?.version], ['1', '2'])
  })

  test('an input the codec cannot encode rejects the call in the workflow; nothing ends', async (env) => {
    const engine = await env.engine()
    engine.register('bad', 1, async (ctx) => {
      try {
        await ctx.continueAsNew({ f: () => 1 })
        return 'continued?'
      } catch (error) {
        return `refused: ${(error as { code?: string }).code}`
      }
    })
    const { runId } = await engine.start('bad', null)
    const outcome = await engine.waitForRun(runId, { timeoutMs: 5_000 })
    assert.equal(output(outcome), 'refused: E_NOT_SERIALIZABLE')
    assert.equal((await engine.getRun(runId))?.continuedTo, null)
  })

  test('a successor whose predecessor was cancelled instead of continuing never runs', async (env) => {
    const engine = await env.engine({ drive: false })
    let ran = 0
    engine.register('orphaned', 1, async () => {
      ran++
      return 'ran'
    })
    const store = env.handle.store
    await store.open() // the engine opens it when it starts driving; these writes come first
    const now = env.clock.now()
    // What a turn's batch leaves when a cancel wins: the successor was created, the finish
    // that names it was fenced.
    const run = (id: string, extra = {}) => ({
      id,
      workflow: 'orphaned',
      version: '1',
      input: 'null',
      createdAt: now,
      ...extra,
    })
    await store.applyBatch([{ type: 'createRun', run: run('p') }], now)
    await store.applyBatch(
      [
        { type: 'createRun', run: run('p~next', { continuedFrom: 'p' }) },
        { type: 'cancelRun', runId: 'p', error: '"cancelled"' },
      ],
      now,
    )
    await engine.startDriving()
    const outcome = await engine.waitForRun('p~next', { timeoutMs: 5_000 })
    assert.equal(outcome.status, 'cancelled')
    const error = (outcome as { error: { code?: string; message: string } }).error
    assert.equal(error.code, CancelledError.code)
    assert.match(error.message, /"p" ended cancelled without continuing/)
    assert.equal(ran, 0)
  })

  test('a successor waits while its predecessor is still live, then runs once it continues to it', async (env) => {
    const engine = await env.engine({ drive: false, leaseMs: 10_000 })
    let ran = 0
    engine.register('late', 1, async () => ++ran)
    const store = env.handle.store
    await store.open() // the engine opens it when it starts driving; these writes come first
    const now = env.clock.now()
    const run = (id: string, extra = {}) => ({
      id,
      workflow: 'late',
      version: '1',
      input: 'null',
      createdAt: now,
      ...extra,
    })
    // A stale holder created the successor; the predecessor's current holder still runs it.
    await store.applyBatch(
      [{ type: 'createRun', run: run('q'), claim: { owner: 'elsewhere', leaseMs: 600_000 } }],
      now,
    )
    await store.applyBatch([{ type: 'createRun', run: run('q~next', { continuedFrom: 'q' }) }], now)
    await engine.startDriving()
    await env.settle()
    assert.equal(ran, 0)
    assert.equal((await store.getRun('q~next'))?.status, 'pending', 'handed back for later')
    const finished = await store.applyBatch(
      [
        {
          type: 'finishRun',
          fence: { runId: 'q', epoch: 1 },
          status: 'continued',
          output: null,
          error: null,
          continuedTo: 'q~next',
        },
      ],
      env.clock.now(),
    )
    assert.equal(finished[0]?.status, 'applied')
    await env.skip(10_000)
    assert.equal(output(await engine.waitForRun('q', { timeoutMs: 5_000 })), 1)
    assert.equal(ran, 1)
  })

  test('run ids ending in ~next are reserved for successors', async (env) => {
    const engine = await env.engine()
    engine.register('plain', 1, async () => 'ok')
    await assert.rejects(engine.start('plain', null, { runId: 'order-42~next' }), {
      code: 'E_INVALID_ARGUMENT',
    })
    engine.register('parent', 1, async (ctx) => {
      try {
        await ctx.child('plain', null, { childId: 'kid~next' })
        return 'started'
      } catch (error) {
        return (error as { code?: string }).code
      }
    })
    const { runId } = await engine.start('parent', null)
    assert.equal(output(await engine.waitForRun(runId, { timeoutMs: 5_000 })), 'E_CHILD_FAILED')
  })

  test('a compensating cancel the run had not read moves to its successor', async (env) => {
    const engine = await env.engine({ drive: false })
    let stepsRun = 0
    engine.register('chain', 1, async (ctx) => {
      await ctx.localStep('work', () => ++stepsRun)
      return 'done'
    })
    const store = env.handle.store
    await store.open()
    const now = env.clock.now()
    const run = (id: string, extra = {}) => ({
      id,
      workflow: 'chain',
      version: '1',
      input: 'null',
      createdAt: now,
      ...extra,
    })
    // r runs on another engine; the cancel lands in its inbox; it continues before reading it.
    await store.applyBatch(
      [{ type: 'createRun', run: run('r'), claim: { owner: 'elsewhere', leaseMs: 600_000 } }],
      now,
    )
    await engine.cancel('r', { compensate: true, reason: 'stop the chain' })
    const results = await store.applyBatch(
      [
        { type: 'createRun', run: run('r~next', { continuedFrom: 'r' }) },
        {
          type: 'finishRun',
          fence: { runId: 'r', epoch: 1 },
          status: 'continued',
          output: null,
          error: null,
          continuedTo: 'r~next',
        },
      ],
      now,
    )
    assert.deepEqual(
      results.map((r) => r.status),
      ['applied', 'applied'],
    )
    await engine.startDriving()
    const outcome = await engine.waitForRun('r', { timeoutMs: 5_000 })
    assert.equal(outcome.runId, 'r~next')
    assert.equal(outcome.status, 'cancelled')
    assert.equal(stepsRun, 0, 'the successor took no step')
  })

  test('run:continued names the successor; a successor gets a fresh execution timeout', async (env) => {
    const engine = await env.engine()
    const continued: Array<{ runId: string; successorRunId: string }> = []
    engine.on('run:continued', ({ runId, successorRunId }) =>
      continued.push({ runId, successorRunId }),
    )
    const HOUR = 3_600_000
    engine.register(
      'rounds',
      1,
      async (ctx, round: number) => {
        await ctx.sleep(40 * 60_000) // two rounds outlast one execution timeout, not each
        if (round === 0) return ctx.continueAsNew(1)
        return `finished round ${round}`
      },
      { executionTimeoutMs: HOUR },
    )
    const { runId } = await engine.start('rounds', 0)
    await env.settle()
    await env.skip(40 * 60_000)
    await env.skip(40 * 60_000)
    const outcome = await engine.waitForRun(runId, { timeoutMs: 5_000 })
    assert.equal(output(outcome), 'finished round 1')
    assert.deepEqual(continued, [{ runId, successorRunId: `${runId}~next` }])
  })
})
