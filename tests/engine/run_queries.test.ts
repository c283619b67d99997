/**
 * The engine's read surface for dashboards: listRuns with the version / time window / id
 * filters, facetRuns, and getStepsPage (getSteps one page at a time, with its cursor).
 */
import assert from 'node:assert/strict'
import type { Engine } from '@cairn/core'
import { eachStore } from '../helpers/harness.ts'

/** A workflow recording `count` local steps, each returning its index. */
function registerCounter(engine: Engine): void {
  engine.register('counter', 1, async (ctx, count: number) => {
    for (let i = 0; i < count; i++) await ctx.localStep(`step-${i}`, () => ({ i }))
    return count
  })
}

eachStore('engine run queries', (test) => {
  test('getStepsPage walks the timeline in pages mapped as getSteps maps them', async (env) => {
    const engine = await env.engine()
    registerCounter(engine)
    const { runId } = await engine.start('counter', 5)
    await engine.waitForRun(runId, { timeoutMs: 5_000 })
    const all = await engine.getSteps(runId)
    assert.equal(all.length, 5)

    const first = await engine.getStepsPage(runId, { fromSeq: 0, limit: 2 })
    assert.deepEqual(first, { steps: all.slice(0, 2), nextFromSeq: 2 })
    const second = await engine.getStepsPage(runId, { fromSeq: 2, limit: 2 })
    assert.deepEqual(second, { steps: all.slice(2, 4), nextFromSeq: 4 })
    const last = await engine.getStepsPage(runId, { fromSeq: 4, limit: 2 })
    assert.deepEqual(last, { steps: all.slice(4), nextFromSeq: null }, 'a short page ends it')
    assert.deepEqual(last.steps[0]?.output, { i: 4 }, 'outputs decoded by the codec')
  })

  test('a full last page gives a cursor whose page is empty', async (env) => {
    const engine = await env.engine()
    registerCounter(engine)
    const { runId } = await engine.start('counter', 4)
    await engine.waitForRun(runId, { timeoutMs: 5_000 })
    const full = await engine.getStepsPage(runId, { fromSeq: 2, limit: 2 })
    assert.deepEqual(
      full.steps.map((step) => step.seq),
      [2, 3],
    )
    assert.equal(full.nextFromSeq, 4, 'a full page cannot know it was the last')
    assert.deepEqual(await engine.getStepsPage(runId, { fromSeq: 4, limit: 2 }), {
      steps: [],
      nextFromSeq: null,
    })
  })

  test('getStepsPage: unknown run, bad arguments', async (env) => {
    const engine = await env.engine()
    assert.deepEqual(await engine.getStepsPage('nope', { fromSeq: 0, limit: 10 }), {
      steps: [],
      nextFromSeq: null,
    })
    for (const page of [
      { fromSeq: -1, limit: 10 },
      { fromSeq: 0, limit: 0 },
      { fromSeq: 0, limit: 1001 },
    ]) {
      await assert.rejects(engine.getStepsPage('nope', page), { code: 'E_INVALID_ARGUMENT' })
    }
  })

  test('listRuns and facetRuns take version, time window and id filters', async (env) => {
    const engine = await env.engine({ drive: false })
    registerCounter(engine)
    engine.register('counter', 2, async () => 0)
    engine.register('mailer', 1, async () => 0)
    const startedAt = env.clock.now()
    await engine.start('counter', 0, { runId: 'count-a' })
    await env.skip(1_000)
    await engine.start('counter', 0, { runId: 'count-b' })
    await engine.start('mailer', 0, { runId: 'mail-a' })
    const ids = async (query: Parameters<Engine['listRuns']>[0]) =>
      (await engine.listRuns(query)).runs.map((run) => run.id)

    assert.deepEqual(await ids({ createdFrom: startedAt + 1_000 }), ['mail-a', 'count-b'])
    assert.deepEqual(await ids({ createdBefore: startedAt + 1_000 }), ['count-a'])
    assert.deepEqual(await ids({ idContains: '-a' }), ['mail-a', 'count-a'])
    // A start runs the newest registered version: counter runs are version 2.
    assert.deepEqual(await ids({ version: '2' }), ['count-b', 'count-a'])
    assert.deepEqual(await ids({ version: '1' }), ['mail-a'])
    assert.deepEqual(await engine.facetRuns({ workflow: 'counter', idContains: '-a' }), {
      byStatus: { pending: 1 },
      byWorkflow: [
        { workflow: 'counter', count: 1 },
        { workflow: 'mailer', count: 1 },
      ],
    })
    await assert.rejects(engine.listRuns({ idContains: '' }), { code: 'E_INVALID_ARGUMENT' })
  })
})

eachStore('engine run queries: order', (test) => {
  test("listRuns({ order: 'oldest' }) pages oldest first, each run with its search attributes", async (env) => {
    const engine = await env.engine()
    engine.register('scored', 1, async (ctx, score: number) => {
      await ctx.upsertSearchAttributes({ score })
      return score
    })
    const ids = ['s-0', 's-1', 's-2']
    for (const [score, runId] of ids.entries()) {
      await engine.start('scored', score, { runId })
      await env.skip(1_000)
    }
    await env.settle()
    const first = await engine.listRuns({ order: 'oldest', limit: 2 })
    assert.deepEqual(
      first.runs.map((run) => [run.id, run.searchAttributes]),
      [
        ['s-0', { score: 0 }],
        ['s-1', { score: 1 }],
      ],
    )
    const cursor = first.nextCursor as string
    const rest = await engine.listRuns({ order: 'oldest', limit: 2, cursor })
    assert.deepEqual(
      rest.runs.map((run) => run.id),
      ['s-2'],
    )
    await assert.rejects(engine.listRuns({ cursor }), { code: 'E_INVALID_CURSOR' })
    await assert.rejects(engine.listRuns({ order: 'up' as 'oldest' }), {
      code: 'E_INVALID_ARGUMENT',
    })
  })
})
