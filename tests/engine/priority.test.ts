/**
 * Run priority through the engine (issue 15): `start(…, { priority })` and a workflow's
 * default; due runs are claimed higher priority first; one claim slot in eight goes to the run
 * due longest, so a low run is not starved; children, successors, retries and forks keep
 * their priority; bad priorities are refused before anything is written. On every store.
 */
import assert from 'node:assert/strict'
import type { Engine } from '@cairn/core'
import { eachStore, type Env } from '../helpers/harness.ts'

/** Registers `job`, which records the order bodies run in. */
function registerJob(engine: Engine, ran: string[], options: { priority?: number } = {}): void {
  engine.register(
    'job',
    1,
    async (ctx, name: string) => {
      await ctx.localStep('record', () => {
        ran.push(name)
      })
      return name
    },
    options,
  )
}

/** Starts `job` runs named `names` from a non-driving client, one fake millisecond apart. */
async function startJobs(
  env: Env,
  client: Engine,
  jobs: ReadonlyArray<readonly [name: string, priority: number | undefined]>,
): Promise<void> {
  for (const [name, priority] of jobs) {
    await client.start('job', name, {
      runId: name,
      ...(priority === undefined ? {} : { priority }),
    })
    await env.skip(1)
  }
}

async function drainAll(engine: Engine, ids: readonly string[]): Promise<void> {
  for (const id of ids) assert.equal((await engine.waitForRun(id)).status, 'completed', id)
}

eachStore('run priority', (test) => {
  test('due runs are claimed higher priority first, equal priority oldest first', async (env) => {
    const ran: string[] = []
    const client = await env.engine({ drive: false, instanceId: 'client' })
    registerJob(client, ran)
    await startJobs(env, client, [
      ['low', -10],
      ['plain-1', undefined],
      ['vip-1', 100],
      ['plain-2', 0],
      ['vip-2', 100],
      ['mid', 50],
    ])
    assert.equal((await client.getRun('vip-1'))?.priority, 100, 'RunInfo.priority')
    assert.equal((await client.getRun('plain-1'))?.priority, 0, 'no priority given: 0')
    const worker = await env.engine({ concurrency: 1, instanceId: 'worker' })
    registerJob(worker, ran)
    await drainAll(worker, ['low', 'plain-1', 'vip-1', 'plain-2', 'vip-2', 'mid'])
    assert.deepEqual(ran, ['vip-1', 'vip-2', 'mid', 'plain-1', 'plain-2', 'low'])
  })

  test('one claim in eight takes the run due longest: a low run is not starved', async (env) => {
    const ran: string[] = []
    const client = await env.engine({ drive: false, instanceId: 'client' })
    registerJob(client, ran)
    const jobs: Array<[string, number]> = [['low', -1000]]
    for (let i = 0; i < 20; i++) jobs.push([`vip-${i}`, 1000])
    await startJobs(env, client, jobs)
    const worker = await env.engine({ concurrency: 1, instanceId: 'worker' })
    registerJob(worker, ran)
    await drainAll(
      worker,
      jobs.map(([name]) => name),
    )
    assert.equal(ran.indexOf('low'), 7, `the eighth claim slot: ${ran.join(', ')}`)
  })

  test("a workflow's priority is its runs' default; a start's own overrides it", async (env) => {
    const engine = await env.engine({ drive: false })
    registerJob(engine, [], { priority: 40 })
    await engine.start('job', 'a', { runId: 'a' })
    await engine.start('job', 'b', { runId: 'b', priority: -3 })
    assert.equal((await engine.getRun('a'))?.priority, 40)
    assert.equal((await engine.getRun('b'))?.priority, -3)
    assert.throws(
      () => engine.register('bad', 1, async () => null, { priority: 5000 }),
      (error: { code?: string; message: string }) =>
        error.code === 'E_INVALID_ARGUMENT' && /priority is an integer/.test(error.message),
    )
  })

  test('bad priorities are refused with E_INVALID_ARGUMENT and create nothing', async (env) => {
    const engine = await env.engine({ drive: false })
    registerJob(engine, [])
    const bad: unknown[] = [1001, -1001, 2.5, Number.NaN, Infinity, '5', null, { valueOf: () => 1 }]
    for (const [i, priority] of bad.entries()) {
      await assert.rejects(
        engine.start('job', 'x', { runId: `bad-${i}`, priority: priority as number }),
        (error: { code?: string; message: string }) =>
          error.code === 'E_INVALID_ARGUMENT' &&
          error.message.startsWith(
            'engine.start("job"): priority is an integer from -1000 to 1000',
          ),
        `priority ${String(priority)}`,
      )
      assert.equal(await engine.getRun(`bad-${i}`), null, `priority ${String(priority)}: no run`)
    }
    const fromJson = JSON.parse('{"runId": "proto", "__proto__": {"priority": 9}}')
    await assert.rejects(engine.start('job', 'x', fromJson), /unknown option "__proto__"/)
    assert.equal(await engine.getRun('proto'), null, 'a __proto__ key creates nothing')
  })

  test('children inherit their parent priority unless given one', async (env) => {
    const engine = await env.engine()
    registerJob(engine, [])
    engine.register('parent', 1, async (ctx) => {
      await ctx.child('job', 'inherits', { childId: 'child-inherits' })
      await ctx.child('job', 'given', { childId: 'child-given', priority: -7 })
      await ctx.all('job', ['x', 'y'], { priority: 3 })
      return 'done'
    })
    const { runId } = await engine.start('parent', null, { priority: 25 })
    assert.equal((await engine.waitForRun(runId)).status, 'completed')
    assert.equal((await engine.getRun('child-inherits'))?.priority, 25)
    assert.equal((await engine.getRun('child-given'))?.priority, -7)
    const children = (await engine.listRuns({ parentRunId: runId })).runs
    assert.deepEqual(children.map((r) => r.priority).sort(), [-7, 25, 3, 3].sort())
  })

  test('a bad child priority fails the call in the workflow and starts nothing', async (env) => {
    const engine = await env.engine()
    registerJob(engine, [])
    engine.register('parent', 1, async (ctx) => {
      try {
        await ctx.child('job', 'x', { priority: 1.5 })
        return 'started'
      } catch (error) {
        return (error as { code?: string }).code
      }
    })
    const { runId } = await engine.start('parent', null)
    assert.deepEqual(await engine.waitForRun(runId), {
      runId,
      status: 'completed',
      output: 'E_INVALID_ARGUMENT',
    })
    assert.equal((await engine.listRuns({ parentRunId: runId })).runs.length, 0)
  })

  test('continueAsNew, retryWithInput and fork keep the priority', async (env) => {
    const engine = await env.engine()
    engine.register('loop', 1, async (ctx, n: number) => {
      if (n < 2) return ctx.continueAsNew(n + 1)
      throw new Error(`stop at ${n}`)
    })
    const { runId } = await engine.start('loop', 0, { runId: 'loop', priority: -400 })
    await env.settle()
    assert.equal((await engine.getRun(runId))?.status, 'continued')
    const chain = (await engine.listRuns({ workflow: 'loop' })).runs
    assert.equal(chain.length, 3, 'the run and two successors')
    for (const run of chain) assert.equal(run.priority, -400, `${run.id} keeps -400`)
    const failed = chain.find((run) => run.status === 'failed')
    assert.ok(failed !== undefined, 'the last successor failed')
    const retried = await engine.retryWithInput(failed.id, 5)
    const forked = await engine.fork(failed.id, { fromSeq: 0 })
    assert.equal((await engine.getRun(retried.runId))?.priority, -400, 'retryWithInput')
    assert.equal((await engine.getRun(forked.runId))?.priority, -400, 'fork')
  })
})
