/**
 * Retention through the engine (issue 16, docs/retention.md): deleteRun takes a finished run
 * with its subtree and refuses while anything of it, or its parent, is open; purgeRuns deletes
 * what listRuns' filter matches, finished runs only; policies sweep in the background on the
 * engine's clock, by age and by count, never a run an open parent waits on. What is gone is
 * read back from the store, never inferred from a report.
 */
import assert from 'node:assert/strict'
import type { Engine, EngineOptions, RetentionOptions } from '@cairn/core'
import { eachStore, type Env } from '../helpers/harness.ts'

const HOUR = 3_600_000

async function engineWith(env: Env, retention?: RetentionOptions): Promise<Engine> {
  const options: Partial<EngineOptions> = retention === undefined ? {} : { retention }
  const engine = await env.engine(options)
  engine.register('double', 1, async (ctx, n: number) => ctx.localStep('double', () => n * 2))
  engine.register('sum', 1, async (ctx, n: number) => {
    const a = await ctx.child<number>('double', n)
    const b = await ctx.child<number>('double', n + 1)
    return a + b
  })
  engine.register('hold', 1, async (ctx) => {
    await ctx.child('double', 1)
    return ctx.waitForSignal<string>('go')
  })
  engine.register('boom', 1, async (ctx) =>
    ctx.localStep(
      'boom',
      () => {
        throw new Error('no')
      },
      { retries: 0 },
    ),
  )
  return engine
}

async function run(engine: Engine, workflow: string, input: unknown, runId: string) {
  await engine.start(workflow, input, { runId })
  return engine.waitForRun(runId, { timeoutMs: 10_000 })
}

async function present(engine: Engine, ids: string[]): Promise<string[]> {
  const found: string[] = []
  for (const id of ids) if ((await engine.store.getRun(id)) !== null) found.push(id)
  return found
}

async function childIds(engine: Engine, parent: string): Promise<string[]> {
  const { runs } = await engine.listRuns({ parentRunId: parent, limit: 100 })
  return runs.map((r) => r.id).sort()
}

async function code(call: Promise<unknown>): Promise<string> {
  return call.then(
    () => 'resolved',
    (error: unknown) => (error as { code?: string }).code ?? String(error),
  )
}

eachStore('retention', (test) => {
  test('deleteRun takes a finished run with its subtree and every row of theirs', async (env) => {
    const engine = await engineWith(env)
    assert.equal((await run(engine, 'sum', 3, 'sum-1')).status, 'completed')
    const children = await childIds(engine, 'sum-1')
    assert.equal(children.length, 2)
    assert.equal((await run(engine, 'sum', 5, 'sum-2')).status, 'completed')
    assert.deepEqual(await engine.deleteRun('sum-1'), { runs: 3 })
    assert.deepEqual(await present(engine, ['sum-1', ...children]), [])
    for (const id of ['sum-1', ...children])
      assert.deepEqual(await engine.store.loadCheckpoints(id), [], `${id}'s checkpoints`)
    assert.equal((await engine.store.loadCheckpoints('sum-2')).length > 0, true, 'sum-2 kept')
    assert.equal(await code(engine.deleteRun('sum-1')), 'E_RUN_NOT_FOUND')
    // The id is free again: a new run under it runs from nothing.
    const again = await run(engine, 'sum', 10, 'sum-1')
    assert.deepEqual(again.status === 'completed' ? again.output : again, 42)
  })

  test('deleteRun refuses while the run, a descendant or its parent is open', async (env) => {
    const engine = await engineWith(env)
    await engine.start('hold', null, { runId: 'hold-1' })
    await env.settle()
    const [child] = await childIds(engine, 'hold-1')
    assert.ok(child !== undefined)
    assert.equal((await engine.getRun(child))?.status, 'completed')
    const refusal = await engine.deleteRun(child).then(
      () => assert.fail('deleted a child its open parent may replay against'),
      (error: { code: string; details: { blocker: unknown } }) => error,
    )
    assert.equal(refusal.code, 'E_RUN_NOT_DELETABLE')
    assert.deepEqual(refusal.details.blocker, {
      runId: 'hold-1',
      status: 'waiting',
      relation: 'parent',
    })
    assert.equal(await code(engine.deleteRun('hold-1')), 'E_RUN_NOT_DELETABLE')
    assert.deepEqual(await present(engine, ['hold-1', child]), ['hold-1', child])
    await engine.signal({ runId: 'hold-1', name: 'go' }, 'now')
    assert.equal((await engine.waitForRun('hold-1', { timeoutMs: 10_000 })).status, 'completed')
    assert.deepEqual(await engine.deleteRun(child), { runs: 1 }, 'its parent finished')
    assert.deepEqual(await engine.deleteRun('hold-1'), { runs: 1 })
    assert.equal(await code(engine.deleteRun('')), 'E_INVALID_ARGUMENT')
  })

  test('purgeRuns deletes what the filter matches, finished runs only', async (env) => {
    const engine = await engineWith(env)
    for (let i = 0; i < 5; i++) await run(engine, 'double', i, `d-${i}`)
    for (let i = 0; i < 3; i++) await run(engine, 'boom', null, `b-${i}`)
    await engine.start('hold', null, { runId: 'open' })
    await env.settle()
    const report = await engine.purgeRuns({ status: 'completed', workflow: 'double', limit: 3 })
    assert.deepEqual(report, { roots: 3, runs: 3, refused: 0, refusals: [] })
    assert.deepEqual(await present(engine, ['d-0', 'd-1', 'd-2', 'd-3', 'd-4']), ['d-3', 'd-4'])
    const all = await engine.purgeRuns({ status: ['failed', 'completed'] })
    // The open run's finished child is refused (its parent may replay against it).
    assert.equal(all.roots, 5, 'd-3, d-4 and three failed')
    assert.equal(all.refused, 1)
    assert.equal(all.refusals[0]?.blocker.runId, 'open')
    assert.deepEqual(await present(engine, ['b-0', 'b-1', 'b-2', 'd-3', 'd-4']), [])
    assert.deepEqual(await present(engine, ['open']), ['open'])
    for (const bad of [
      { status: 'waiting' },
      {},
      { status: [] },
      { status: 'completed', limit: 0 },
    ])
      assert.equal(
        await code(engine.purgeRuns(bad as never)),
        'E_INVALID_ARGUMENT',
        JSON.stringify(bad),
      )
    assert.equal(
      await code(engine.purgeRuns({ status: 'completed', cursor: 'x' } as never)),
      'E_INVALID_ARGUMENT',
      'an unknown key',
    )
  })

  test('a maxAge policy sweeps on the clock: a run goes once past its age', async (env) => {
    const engine = await engineWith(env, {
      policies: [{ statuses: ['completed'], maxAge: '1h' }],
      interval: '1m',
    })
    const swept: unknown[] = []
    engine.on('retention:swept', (event) => swept.push({ ...event, durationMs: 0 }))
    await run(engine, 'sum', 1, 'old')
    const oldRuns = ['old', ...(await childIds(engine, 'old'))]
    await env.skip(HOUR / 2)
    await run(engine, 'double', 1, 'young')
    await run(engine, 'boom', null, 'failed-old')
    await env.skip(HOUR / 2 + 2 * 60_000)
    await env.settle()
    assert.deepEqual(await present(engine, oldRuns), [], 'an hour old: gone, children too')
    assert.deepEqual(await present(engine, ['young', 'failed-old']), ['young', 'failed-old'])
    assert.deepEqual(swept, [
      { policy: '*:completed', roots: 1, runs: 3, refused: 0, durationMs: 0 },
    ])
    await env.skip(HOUR / 2 + 2 * 60_000)
    await env.settle()
    assert.deepEqual(await present(engine, ['young', 'failed-old']), ['failed-old'])
  })

  test('a maxCount policy keeps the newest N of its scope', async (env) => {
    const engine = await engineWith(env, {
      policies: [{ workflow: 'boom', statuses: ['failed'], maxCount: 2 }],
    })
    for (let i = 0; i < 5; i++) {
      await run(engine, 'boom', null, `b-${i}`)
      await env.skip(1_000)
    }
    await run(engine, 'double', 1, 'other')
    const [sweep] = await engine.sweepRetention()
    assert.deepEqual(sweep, { policy: 'boom:failed', roots: 3, runs: 3, refused: 0 })
    assert.deepEqual(await present(engine, ['b-0', 'b-1', 'b-2', 'b-3', 'b-4', 'other']), [
      'b-3',
      'b-4',
      'other',
    ])
    assert.deepEqual(await engine.sweepRetention(), [
      { policy: 'boom:failed', roots: 0, runs: 0, refused: 0 },
    ])
  })

  test('a policy passes over a run an open parent waits on, and takes it later', async (env) => {
    const engine = await engineWith(env, { policies: [{ statuses: ['completed'], maxAge: 0 }] })
    await engine.start('hold', null, { runId: 'parent' })
    await env.settle()
    const [child] = await childIds(engine, 'parent')
    assert.ok(child !== undefined)
    assert.deepEqual(await engine.sweepRetention(), [
      { policy: '*:completed', roots: 0, runs: 0, refused: 0 },
    ])
    assert.deepEqual(await present(engine, ['parent', child]), ['parent', child])
    await engine.signal({ runId: 'parent', name: 'go' }, 'now')
    await engine.waitForRun('parent', { timeoutMs: 10_000 })
    await env.skip(1) // maxAge 0: a run goes once it finished before now
    const [sweep] = await engine.sweepRetention()
    assert.equal(sweep?.runs, 2)
    assert.deepEqual(await present(engine, ['parent', child]), [])
  })

  test('a policy that fails does not hold back the others, nor retry every second', async (env) => {
    let cutoffs = 0
    const store = new Proxy(env.handle.store, {
      get(target, name) {
        if (name === 'retentionCutoff')
          return async () => {
            cutoffs++
            throw new Error('statement timeout')
          }
        const value = Reflect.get(target, name)
        return typeof value === 'function' ? value.bind(target) : value
      },
    })
    const engine = await env.engine({
      store,
      retention: {
        policies: [
          { name: 'broken', statuses: ['failed'], maxCount: 1 },
          { name: 'working', statuses: ['completed'], maxAge: '1m' },
        ],
        interval: '10m',
      },
    })
    engine.register('double', 1, async (ctx, n: number) => ctx.localStep('double', () => n * 2))
    await run(engine, 'double', 1, 'done')
    await env.skip(2 * 3_600_000) // two hours: twelve sweeps
    await env.settle()
    assert.deepEqual(await present(engine, ['done']), [], 'the working policy swept')
    assert.ok(cutoffs >= 12 && cutoffs <= 14, `one failed try per sweep, got ${cutoffs}`)
  })

  test('malformed retention options are refused at construction', async (env) => {
    const bad: unknown[] = [
      { policies: [{ statuses: ['completed'] }] },
      { policies: [{ statuses: ['running'], maxAge: '1d' }] },
      { policies: [{ statuses: [], maxAge: '1d' }] },
      { policies: [{ statuses: ['completed'], maxAge: 'soon' }] },
      { policies: [{ statuses: ['completed'], maxCount: -1 }] },
      { policies: [{ statuses: ['completed'], maxCount: Number.NaN }] },
      { policies: [{ statuses: ['completed'], maxAge: '1d', keep: 3 }] },
      { policies: [{ statuses: ['completed'], maxAge: '1d' }], interval: 10 },
      { policies: [{ statuses: ['completed'], maxAge: '1d' }], batchSize: 500 },
      { policies: [{ statuses: ['completed'], maxAge: '1d' }], pause: '20s' },
      { policies: [{ statuses: ['completed'], maxAge: '1d' }], pause: Number.NaN },
      { policies: 'all' },
      {
        policies: [
          { statuses: ['completed'], maxAge: '1d' },
          { statuses: ['completed'], maxCount: 5 },
        ],
      },
      JSON.parse('{"policies":[],"__proto__":{"x":1}}'),
    ]
    for (const retention of bad)
      assert.equal(
        await code(env.engine({ retention: retention as RetentionOptions, drive: false })),
        'E_INVALID_ARGUMENT',
        JSON.stringify(retention),
      )
  })
})
