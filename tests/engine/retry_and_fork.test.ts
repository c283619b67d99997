/**
 * engine.retryWithInput and engine.fork on every store: which steps run again (counted), the
 * new run's origin and listRuns({ originRunId }), replay of a fork's history on a later turn
 * (seeded outcomes, then its own), parallel branches, child results, and operators on an
 * engine that does not have the workflow.
 */
import assert from 'node:assert/strict'
import type { Engine, WorkflowContext } from '@cairn/core'
import { eachStore, type Env } from '../helpers/harness.ts'

/** Counts each step body's executions, by step name. */
class Executions {
  readonly counts = new Map<string, number>()
  count(name: string): void {
    this.counts.set(name, (this.counts.get(name) ?? 0) + 1)
  }
  of(...names: string[]): number[] {
    return names.map((name) => this.counts.get(name) ?? 0)
  }
}

/** a → b → c, each counted; c reads the input. */
function registerThreeSteps(engine: Engine, runs: Executions) {
  engine.register('three', 1, async (ctx: WorkflowContext, input: { x: string }) => {
    const a = await ctx.localStep('a', () => (runs.count('a'), 'A'))
    const b = await ctx.localStep('b', () => (runs.count('b'), 'B'))
    const c = await ctx.localStep('c', () => (runs.count('c'), `C:${input.x}`))
    return [a, b, c].join(' ')
  })
}

/**
 * Two branches at once: `slow` (position 0) finishes only after `fast` (position 1), so its
 * outcome is delivered after one of a later position; then `after`, a sleep (a second turn
 * replays everything recorded so far), and `last`.
 */
function registerBranches(engine: Engine, runs: Executions) {
  engine.register('branches', 1, async (ctx: WorkflowContext) => {
    let fastDone!: () => void
    const gate = new Promise<void>((resolve) => (fastDone = resolve))
    const [slow, fast] = await Promise.all([
      ctx.localStep('slow', async () => {
        runs.count('slow')
        await gate
        return 'slow'
      }),
      ctx.localStep('fast', () => {
        runs.count('fast')
        fastDone()
        return 'fast'
      }),
    ])
    const after = await ctx.localStep('after', () => (runs.count('after'), 'after'))
    await ctx.sleep(1_000)
    const last = await ctx.localStep('last', () => (runs.count('last'), 'last'))
    return [slow, fast, after, last].join(' ')
  })
}

async function completed(engine: Engine, runId: string): Promise<unknown> {
  const outcome = await engine.waitForRun(runId, { timeoutMs: 5_000 })
  assert.equal(outcome.status, 'completed', `run ${runId}: ${JSON.stringify(outcome)}`)
  return (outcome as { output: unknown }).output
}

async function codeOf(call: Promise<unknown>): Promise<string | undefined> {
  const error = await call.then(
    () => assert.fail('expected a rejection'),
    (e: unknown) => e,
  )
  return (error as { code?: string }).code
}

/** (seq, order) of a run's stored checkpoints. */
async function orders(env: Env, runId: string): Promise<Array<[number, number | null]>> {
  const records = await env.handle.store.loadCheckpoints(runId)
  return records.map((r) => [r.seq, r.order])
}

eachStore('retry and fork', (test) => {
  test('a fork from the middle re-runs only the later steps and links to its source', async (env) => {
    const runs = new Executions()
    const engine = await env.engine()
    registerThreeSteps(engine, runs)
    const { runId: source } = await engine.start('three', { x: 'old' }, { tags: ['batch-7'] })
    assert.equal(await completed(engine, source), 'A B C:old')
    const { runId, existing } = await engine.fork(source, { fromSeq: 1 })
    assert.equal(existing, false)
    assert.equal(await completed(engine, runId), 'A B C:old')
    assert.deepEqual(runs.of('a', 'b', 'c'), [1, 2, 2], 'a reused; b and c ran again')
    const fork = await engine.getRun(runId)
    assert.deepEqual(fork?.origin, { kind: 'fork', runId: source, fromSeq: 1 })
    assert.deepEqual(fork?.tags, ['batch-7'], 'the source tags')
    assert.equal(fork?.workflow, 'three')
    assert.deepEqual(
      (await engine.listRuns({ originRunId: source })).runs.map((r) => r.id),
      [runId],
    )
    // The copied outcome keeps its order; the new ones come after it.
    assert.deepEqual(await orders(env, runId), [
      [0, 1],
      [1, 2],
      [2, 3],
    ])
  })

  test('a fork from 0 re-runs everything; a fork from the end re-runs nothing', async (env) => {
    const runs = new Executions()
    const engine = await env.engine()
    registerThreeSteps(engine, runs)
    const { runId: source } = await engine.start('three', { x: 'x' })
    await completed(engine, source)
    await completed(engine, (await engine.fork(source, { fromSeq: 0 })).runId)
    assert.deepEqual(runs.of('a', 'b', 'c'), [2, 2, 2])
    await completed(engine, (await engine.fork(source, { fromSeq: 3 })).runId)
    assert.deepEqual(runs.of('a', 'b', 'c'), [2, 2, 2], 'every outcome reused')
  })

  test('a fork with a new input uses it from fromSeq on', async (env) => {
    const runs = new Executions()
    const engine = await env.engine()
    registerThreeSteps(engine, runs)
    const { runId: source } = await engine.start('three', { x: 'old' })
    await completed(engine, source)
    const { runId } = await engine.fork(source, { fromSeq: 2, input: { x: 'new' } })
    assert.equal(await completed(engine, runId), 'A B C:new')
    assert.deepEqual(runs.of('a', 'b', 'c'), [1, 1, 2])
    assert.deepEqual((await engine.getRun(runId))?.input, { x: 'new' })
  })

  test('a fork of parallel branches reuses an outcome delivered after a re-run position', async (env) => {
    const runs = new Executions()
    const engine = await env.engine()
    registerBranches(engine, runs)
    const { runId: source } = await engine.start('branches', null)
    await env.skip(1_000)
    assert.equal(await completed(engine, source), 'slow fast after last')
    // fast (position 1) was delivered before slow (position 0).
    assert.deepEqual((await orders(env, source)).slice(0, 2), [
      [0, 2],
      [1, 1],
    ])
    const { runId } = await engine.fork(source, { fromSeq: 1 })
    await env.settle()
    await env.skip(1_000) // the fork's sleep: its second turn replays seeded and new outcomes
    assert.equal(await completed(engine, runId), 'slow fast after last')
    assert.deepEqual(runs.of('slow', 'fast', 'after', 'last'), [1, 2, 2, 2])
    // slow keeps order 2; fast, run again, is delivered after every copied outcome.
    assert.deepEqual((await orders(env, runId)).slice(0, 3), [
      [0, 2],
      [1, 3],
      [2, 4],
    ])
  })

  test('a fork keeps a child position’s recorded result: the child is not started again', async (env) => {
    const runs = new Executions()
    const engine = await env.engine()
    engine.register('kid', 1, async (ctx: WorkflowContext, n: number) =>
      ctx.localStep('kid-work', () => (runs.count('kid'), n * 2)),
    )
    engine.register('parent', 1, async (ctx: WorkflowContext) => {
      const doubled = await ctx.child<number>('kid', 21)
      return ctx.localStep('use', () => (runs.count('use'), doubled + 1))
    })
    const { runId: source } = await engine.start('parent', null)
    assert.equal(await completed(engine, source), 43)
    const { runId } = await engine.fork(source, { fromSeq: 1 })
    assert.equal(await completed(engine, runId), 43)
    assert.deepEqual(runs.of('kid', 'use'), [1, 2])
    assert.deepEqual((await engine.listRuns({ parentRunId: runId })).runs, [], 'no new child')
  })

  test('retry with edited input: a failed run’s retry completes with the new input', async (env) => {
    const engine = await env.engine()
    engine.register('charge', 1, async (ctx: WorkflowContext, input: { card: string }) =>
      ctx.localStep(
        'charge',
        () => {
          if (input.card === 'expired') throw new Error('card expired')
          return `charged ${input.card}`
        },
        { retries: 0 },
      ),
    )
    const { runId: source } = await engine.start('charge', { card: 'expired' }, { tags: ['eu'] })
    const failed = await engine.waitForRun(source, { timeoutMs: 5_000 })
    assert.equal(failed.status, 'failed')
    const { runId } = await engine.retryWithInput(source, { card: 'valid' })
    assert.equal(await completed(engine, runId), 'charged valid')
    const retry = await engine.getRun(runId)
    assert.deepEqual(retry?.origin, { kind: 'retry', runId: source, fromSeq: null })
    assert.deepEqual(retry?.tags, ['eu'])
    assert.equal((await engine.getRun(source))?.status, 'failed', 'the source is left as it is')
    const made = await engine.listRuns({ originRunId: source })
    assert.deepEqual(
      made.runs.map((r) => r.id),
      [runId],
    )
  })

  test('an engine without the workflow retries and forks; the engine that has it drives', async (env) => {
    const runs = new Executions()
    const worker = await env.engine()
    registerThreeSteps(worker, runs)
    const { runId: source } = await worker.start('three', { x: 'old' })
    await completed(worker, source)
    // Like the CLI dashboard: nothing registered, not driving.
    const operator = await env.engine({ drive: false })
    const forked = await operator.fork(source, { fromSeq: 2 })
    const retried = await operator.retryWithInput(source, { x: 'edited' })
    assert.deepEqual(operator.registeredWorkflows(), [])
    await env.skip(60_000) // the worker's next poll
    assert.equal(await completed(worker, forked.runId), 'A B C:old')
    assert.equal(await completed(worker, retried.runId), 'A B C:edited')
    assert.deepEqual(runs.of('a', 'b', 'c'), [2, 2, 3])
    const made = await operator.listRuns({ originRunId: source })
    assert.deepEqual(made.runs.map((r) => r.id).sort(), [forked.runId, retried.runId].sort())
  })

  test('retry and fork are idempotent by runId', async (env) => {
    const engine = await env.engine()
    registerThreeSteps(engine, new Executions())
    const { runId: source } = await engine.start('three', { x: 'x' })
    await completed(engine, source)
    const first = await engine.fork(source, { fromSeq: 1, runId: 'fork-1' })
    assert.deepEqual(await engine.fork(source, { fromSeq: 1, runId: 'fork-1' }), {
      runId: 'fork-1',
      existing: true,
    })
    assert.equal(first.existing, false)
    assert.equal(
      await codeOf(engine.retryWithInput(source, { x: 'y' }, { runId: 'fork-1' })),
      'E_RUN_ID_CONFLICT',
    )
    // Same workflow and input, made another way: not this copy.
    assert.equal(
      await codeOf(engine.fork(source, { fromSeq: 2, runId: 'fork-1' })),
      'E_RUN_ID_CONFLICT',
    )
    assert.equal(
      await codeOf(engine.retryWithInput(source, { x: 'x' }, { runId: 'fork-1' })),
      'E_RUN_ID_CONFLICT',
    )
    assert.equal(
      await codeOf(engine.fork(source, { fromSeq: 1, runId: source })),
      'E_RUN_ID_CONFLICT',
    )
  })

  test('bad fromSeq, unknown runs and bad tags are refused', async (env) => {
    const engine = await env.engine()
    registerThreeSteps(engine, new Executions())
    const { runId: source } = await engine.start('three', { x: 'x' })
    await completed(engine, source)
    for (const fromSeq of [-1, 4, 1.5, Number.NaN, '1' as unknown as number]) {
      assert.equal(
        await codeOf(engine.fork(source, { fromSeq })),
        'E_INVALID_ARGUMENT',
        `fromSeq ${String(fromSeq)}`,
      )
    }
    assert.equal(await codeOf(engine.fork('no-such-run', { fromSeq: 0 })), 'E_RUN_NOT_FOUND')
    assert.equal(await codeOf(engine.retryWithInput('no-such-run', {})), 'E_RUN_NOT_FOUND')
    const distinct = (n: number) => Array.from({ length: n }, (_, i) => `t${i}`)
    for (const tags of [[''], ['a', 'a'], ['x'.repeat(65)], distinct(21)]) {
      assert.equal(
        await codeOf(engine.start('three', {}, { tags })),
        'E_INVALID_ARGUMENT',
        JSON.stringify(tags),
      )
    }
    const { runs } = await engine.listRuns({ originRunId: source })
    assert.deepEqual(runs, [], 'nothing created by a refused call')
    assert.equal((await engine.listRuns({})).runs.length, 1, 'only the source')
    // The limits themselves are allowed: 20 distinct tags, a 64-character tag.
    for (const tags of [distinct(20), ['x'.repeat(64)]]) {
      const { runId } = await engine.start('three', { x: 'x' }, { tags })
      assert.deepEqual((await engine.getRun(runId))?.tags, tags)
    }
  })

  test('tags: set at start, listed by tag', async (env) => {
    const engine = await env.engine({ drive: false })
    registerThreeSteps(engine, new Executions())
    const tagged = await engine.start('three', { x: '1' }, { tags: ['eu', 'vip'] })
    await engine.start('three', { x: '2' }, { tags: ['eu'] })
    await engine.start('three', { x: '3' })
    assert.deepEqual((await engine.getRun(tagged.runId))?.tags, ['eu', 'vip'])
    assert.deepEqual(
      (await engine.listRuns({ tag: 'vip' })).runs.map((r) => r.id),
      [tagged.runId],
    )
    assert.equal((await engine.listRuns({ tag: 'eu' })).runs.length, 2)
  })
})
