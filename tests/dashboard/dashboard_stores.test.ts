/**
 * The dashboard's API on every store (DB=memory,sqlite,postgres,mysql,…): filters and signed
 * cursors paging through the store's lists, facets, step pages, details with lineage and
 * waits, actions, bulk actions, and a dashboard over an engine that does not drive (as the
 * CLI runs it) acting on runs another engine executes.
 */
import assert from 'node:assert/strict'
import type { Engine } from '@cairn/core'
import { createDashboard, type Dashboard } from '@cairn/dashboard'
import { eachStore, type Env } from '../helpers/harness.ts'
import {
  ORIGIN,
  SECRET,
  TOKEN,
  call,
  registerWorkflows,
} from '../../packages/dashboard/test/helpers.ts'
import { SseReader } from '../../packages/dashboard/test/sse_reader.ts'

/** Skips a poll interval of fake time at a time until `done` settles (its own deadline ends it). */
async function skipUntil<T>(env: Env, done: Promise<T>): Promise<T> {
  let settled = false
  const watched = done.finally(() => {
    settled = true
  })
  while (!settled) {
    await env.skip(60_000)
    await Promise.race([watched, new Promise((resolve) => setTimeout(resolve, 50))]).catch(() => {})
  }
  return watched
}

/**
 * Three `orphan` runs claimable for ten minutes that no engine claims (the engine that made
 * them does not drive; the driving one lacks the workflow), a `sleepy` run waiting a day and a
 * completed `greeted`: what the stuck filters must tell apart. Ten minutes is short of the
 * parking of unrunnable runs.
 */
async function stuckOrphans(env: Env) {
  const engine = await env.engine()
  registerAll(engine)
  engine.register('sleepy', 1, async (ctx, _: unknown) => ctx.sleep(86_400_000))
  const idle = await env.engine({ drive: false })
  idle.register('orphan', 1, async (_ctx, _: unknown) => 'never')
  const dashboard = dashboardOf(engine)
  for (let i = 0; i < 3; i++) await idle.start('orphan', {}, { runId: `orphan-${i}` })
  await engine.start('sleepy', {}, { runId: 'sleepy' })
  await engine.start('greet', 'done', { runId: 'greeted' })
  await env.settle()
  await env.skip(600_000)
  return { engine, idle, dashboard }
}

function dashboardOf(engine: Engine): Dashboard {
  const stream = { runPollMs: 20, listPollMs: 20, keepAliveMs: 20 }
  return createDashboard({ engine, secret: SECRET, auth: { tokens: [TOKEN] }, stream })
}

async function openStream(dashboard: Dashboard, path: string): Promise<SseReader> {
  const headers = { authorization: `Bearer ${TOKEN}` }
  return new SseReader(await dashboard.fetch(new Request(`${ORIGIN}${path}`, { headers })))
}

function registerAll(engine: Engine): void {
  registerWorkflows(engine)
  engine.register('steps', 1, async (ctx, n: number) => {
    for (let i = 0; i < n; i++) await ctx.localStep(`s${i}`, () => i)
    return n
  })
  engine.register('scored', 1, async (ctx, score: number) => {
    await ctx.upsertSearchAttributes({ score })
    return score
  })
  engine.register('parent', 1, async (ctx, _: unknown) => ctx.child('wait', {}))
  engine.register('echo', 1, async (ctx, input: unknown) => ctx.localStep('echo', () => input))
}

/** A value of every kind the API reference says how to write as JSON. */
function everyKind(): Record<string, unknown> {
  return {
    date: new Date('2026-01-02T03:04:05.678Z'),
    invalidDate: new Date(Number.NaN),
    big: 12345678901234567890n,
    map: new Map<unknown, unknown>([
      ['a', 1],
      [2, new Date(0)],
    ]),
    set: new Set<unknown>(['x', 3n]),
    buffer: Buffer.from('hi'),
    typed: new Uint16Array([1, 2]),
    arrayBuffer: new Uint8Array([255, 0]).buffer,
    regexp: /a+b/gi,
    error: Object.assign(new RangeError('bad'), { code: 'E_BAD' }),
    plainError: new Error('plain'),
    nan: Number.NaN,
    inf: Number.POSITIVE_INFINITY,
    negInf: Number.NEGATIVE_INFINITY,
    missing: undefined,
    list: [1, undefined, Number.NaN, Number.NEGATIVE_INFINITY],
  }
}

/** everyKind() as docs/dashboard.md says the API writes it. */
const EVERY_KIND_AS_JSON = {
  date: '2026-01-02T03:04:05.678Z',
  invalidDate: null,
  big: '12345678901234567890',
  map: [
    ['a', 1],
    [2, '1970-01-01T00:00:00.000Z'],
  ],
  set: ['x', '3'],
  buffer: 'aGk=',
  typed: 'AQACAA==',
  arrayBuffer: '/wA=',
  regexp: '/a+b/gi',
  error: { name: 'RangeError', message: 'bad', code: 'E_BAD' },
  plainError: { name: 'Error', message: 'plain' },
  nan: null,
  inf: null,
  negInf: null,
  list: [1, null, null, null],
}

/** Every run id of a filtered list, page by page (limit 2), through the dashboard's cursors. */
async function allIds(dashboard: Dashboard, query: string): Promise<string[]> {
  const ids: string[] = []
  let cursor: string | null = null
  do {
    const suffix: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`
    const { status, json } = await call(dashboard, `/api/runs?${query}&limit=2${suffix}`)
    assert.equal(status, 200, JSON.stringify(json))
    ids.push(...json.runs.map((r: { id: string }) => r.id))
    cursor = json.nextCursor
  } while (cursor !== null)
  return ids
}

eachStore('dashboard API', (test) => {
  test('filters page through the store with signed cursors; facets count them', async (env) => {
    const engine = await env.engine()
    registerAll(engine)
    const dashboard = dashboardOf(engine)
    const greeted: string[] = []
    for (let i = 0; i < 5; i++)
      greeted.push((await engine.start('greet', `g${i}`, { runId: `greet-${i}` })).runId)
    await env.skip(60_000)
    const later = new Date(env.clock.now()).toISOString()
    for (const score of [1, 5, 9]) await engine.start('scored', score, { runId: `scored-${score}` })
    await env.settle()
    assert.deepEqual((await allIds(dashboard, 'workflow=greet')).sort(), greeted)
    assert.deepEqual(await allIds(dashboard, 'q=greet-3'), ['greet-3'])
    assert.deepEqual((await allIds(dashboard, `createdFrom=${later}`)).sort(), [
      'scored-1',
      'scored-5',
      'scored-9',
    ])
    assert.deepEqual((await allIds(dashboard, `createdTo=${later}`)).sort(), greeted)
    assert.deepEqual((await allIds(dashboard, 'attr=score:gte:5')).sort(), ['scored-5', 'scored-9'])
    assert.deepEqual(
      await allIds(dashboard, 'attr=score:eq:s:5'),
      [],
      'a string never matches a number',
    )
    assert.equal((await allIds(dashboard, 'version=1&status=completed')).length, 8)
    const facets = await call(dashboard, '/api/facets?status=completed')
    assert.equal(facets.json.byStatus.completed, 8)
    assert.deepEqual(facets.json.byWorkflow, [
      { workflow: 'greet', count: 5 },
      { workflow: 'scored', count: 3 },
    ])
  })

  test('claimableBefore lists stuck runs, pages with cursors bound to it, facets count them', async (env) => {
    const { engine, dashboard } = await stuckOrphans(env)
    const fiveMinutesAgo = env.clock.now() - 300_000
    const iso = new Date(fiveMinutesAgo).toISOString()
    const stuck = ['orphan-2', 'orphan-1', 'orphan-0']
    assert.deepEqual(await allIds(dashboard, `claimableBefore=${iso}`), stuck)
    assert.deepEqual(
      await allIds(dashboard, `claimableBefore=${fiveMinutesAgo}`),
      stuck,
      'epoch ms',
    )
    const open = 'status=pending&status=running&status=waiting'
    assert.deepEqual(await allIds(dashboard, `${open}&claimableBefore=${iso}`), stuck)
    assert.deepEqual(await allIds(dashboard, `workflow=sleepy&claimableBefore=${iso}`), [])
    const facets = await call(dashboard, `/api/facets?claimableBefore=${iso}`)
    assert.deepEqual(facets.json, {
      byStatus: { pending: 3 },
      byWorkflow: [{ workflow: 'orphan', count: 3 }],
    })
    const first = await call(dashboard, `/api/runs?claimableBefore=${iso}&limit=1`)
    const cursor = encodeURIComponent(first.json.nextCursor)
    const earlier = new Date(fiveMinutesAgo - 1).toISOString()
    const replayed = await call(dashboard, `/api/runs?claimableBefore=${earlier}&cursor=${cursor}`)
    assert.equal(replayed.status, 400)
    assert.equal(replayed.json.error.code, 'E_INVALID_CURSOR', 'a cursor binds claimableBefore')
    const bulk = await call(dashboard, '/api/bulk/cancel', {
      body: { filter: { claimableBefore: iso }, reason: 'stuck' },
    })
    assert.equal(bulk.json.matched, 3, JSON.stringify(bulk.json))
    assert.equal((await engine.getRun('sleepy'))?.status, 'waiting')
  })

  test('stuckFor resolves on the engine clock at each page; cursors bind the key; bulk and facets follow', async (env) => {
    const { engine, idle, dashboard } = await stuckOrphans(env)
    await idle.start('orphan', {}, { runId: 'orphan-3' }) // claimable from now on
    const stuck = ['orphan-2', 'orphan-1', 'orphan-0']
    assert.deepEqual(
      await allIds(dashboard, 'stuckFor=5'),
      stuck,
      'the engine clock, not Date.now()',
    )
    assert.deepEqual(await allIds(dashboard, 'stuckFor=11'), [])
    assert.deepEqual(await allIds(dashboard, 'stuckFor=5&status=pending'), stuck)
    assert.deepEqual(
      await allIds(dashboard, 'stuckFor=0&sort=created'),
      stuck.toReversed(),
      'orphan-3 became claimable now, not before now',
    )
    const facets = await call(dashboard, '/api/facets?stuckFor=5')
    assert.deepEqual(facets.json.byStatus, { pending: 3 })
    for (const bad of ['stuckFor=5&status=completed', `stuckFor=5&claimableBefore=${Date.now()}`]) {
      const refused = await call(dashboard, `/api/runs?${bad}`)
      assert.equal(refused.json.error?.code, 'E_INVALID_ARGUMENT', bad)
    }
    const first = await call(dashboard, '/api/runs?stuckFor=5&sort=created&limit=2')
    assert.deepEqual(
      first.json.runs.map((r: { id: string }) => r.id),
      ['orphan-0', 'orphan-1'],
    )
    const cursor = encodeURIComponent(first.json.nextCursor)
    const other = await call(dashboard, `/api/runs?stuckFor=6&sort=created&cursor=${cursor}`)
    assert.equal(other.json.error?.code, 'E_INVALID_CURSOR', 'a cursor binds stuckFor')
    await env.skip(360_000) // orphan-3 is now stuck too: the next page resolves the cutoff again
    const next = await call(dashboard, `/api/runs?stuckFor=5&sort=created&cursor=${cursor}`)
    assert.deepEqual(
      next.json.runs.map((r: { id: string }) => r.id),
      ['orphan-2', 'orphan-3'],
    )
    const bulk = await call(dashboard, '/api/bulk/cancel', {
      body: { filter: { stuckFor: '8' }, reason: 'stuck' },
    })
    assert.equal(bulk.json.matched, 3, JSON.stringify(bulk.json))
    assert.equal((await engine.getRun('orphan-3'))?.status, 'pending')
    assert.equal((await engine.getRun('sleepy'))?.status, 'waiting')
  })

  test('sort=created lists oldest first through every page and filter; cursors and bulk follow it', async (env) => {
    const engine = await env.engine()
    registerAll(engine)
    // Pending runs nobody drives: this engine does not have the workflow.
    const idle = await env.engine({ drive: false })
    idle.register('orphan', 1, async (_ctx, _: unknown) => 'never')
    const dashboard = dashboardOf(engine)
    const orphans = ['orphan-0', 'orphan-1', 'orphan-2', 'orphan-3', 'orphan-4']
    for (const [i, runId] of orphans.entries()) {
      // Two runs per millisecond, the rest apart: ties are broken by id, in the sort's direction.
      if (i % 2 === 0) await env.skip(1_000)
      await idle.start('orphan', {}, { runId })
    }
    await engine.start('greet', 'done', { runId: 'greeted' })
    await env.settle()
    const now = new Date(env.clock.now() + 1).toISOString()
    assert.deepEqual(await allIds(dashboard, 'workflow=orphan&sort=created'), orphans)
    assert.deepEqual(await allIds(dashboard, 'workflow=orphan'), orphans.toReversed())
    assert.deepEqual(await allIds(dashboard, 'status=pending&sort=created'), orphans)
    assert.deepEqual(await allIds(dashboard, `claimableBefore=${now}&sort=created`), orphans)
    assert.deepEqual(await allIds(dashboard, 'q=orphan-&sort=-created'), orphans.toReversed())
    const first = await call(dashboard, '/api/runs?workflow=orphan&sort=created&limit=1')
    const cursor = encodeURIComponent(first.json.nextCursor)
    const replayed = await call(dashboard, `/api/runs?workflow=orphan&limit=1&cursor=${cursor}`)
    assert.equal(replayed.json.error?.code, 'E_INVALID_CURSOR', 'a cursor binds the sort')
    const bulk = await call(dashboard, '/api/bulk/cancel', {
      body: { filter: { workflow: 'orphan' }, sort: 'created', limit: 2, reason: 'oldest' },
    })
    assert.equal(bulk.json.applied, 2, JSON.stringify(bulk.json))
    const statuses = await Promise.all(orphans.map(async (id) => (await engine.getRun(id))?.status))
    assert.deepEqual(statuses, ['cancelled', 'cancelled', 'pending', 'pending', 'pending'])
  })

  test('payloads of every kind are written as the API reference says', async (env) => {
    const engine = await env.engine()
    registerAll(engine)
    const dashboard = dashboardOf(engine)
    const { runId } = await engine.start('echo', everyKind())
    await engine.waitForRun(runId, { timeoutMs: 5_000 })
    const { status, json } = await call(dashboard, `/api/runs/${runId}`)
    assert.equal(status, 200)
    assert.deepEqual(json.run.input, EVERY_KIND_AS_JSON)
    assert.deepEqual(json.run.output, EVERY_KIND_AS_JSON)
    const steps = await call(dashboard, `/api/runs/${runId}/steps`)
    assert.deepEqual(steps.json.steps[0].output, EVERY_KIND_AS_JSON)
  })

  test('steps come a page at a time; the detail shows lineage and waits', async (env) => {
    const engine = await env.engine()
    registerAll(engine)
    const dashboard = dashboardOf(engine)
    const { runId } = await engine.start('steps', 5)
    await engine.waitForRun(runId, { timeoutMs: 5_000 })
    const first = await call(dashboard, `/api/runs/${runId}/steps?limit=2`)
    assert.deepEqual(
      first.json.steps.map((s: { name: string }) => s.name),
      ['s0', 's1'],
    )
    const rest = await call(
      dashboard,
      `/api/runs/${runId}/steps?fromSeq=${first.json.nextFromSeq}&limit=10`,
    )
    assert.deepEqual(
      rest.json.steps.map((s: { name: string }) => s.name),
      ['s2', 's3', 's4'],
    )
    assert.equal(rest.json.nextFromSeq, null)
    assert.equal(rest.json.steps[0].order, 3)
    assert.equal(typeof rest.json.steps[0].durationMs, 'number')
    const parent = await engine.start('parent', {})
    await env.settle()
    const { json } = await call(dashboard, `/api/runs/${parent.runId}`)
    const child = json.run.lineage.children[0]
    assert.equal(child.workflow, 'wait')
    assert.equal(child.parentRunId, parent.runId)
    assert.deepEqual(json.run.waits, [{ kind: 'child', seq: 0, runId: child.id }])
    const childDetail = await call(dashboard, `/api/runs/${encodeURIComponent(child.id)}`)
    assert.deepEqual(childDetail.json.run.waits, [
      { kind: 'signal', seq: null, name: 'go', timeoutAt: null },
    ])
  })

  test('actions and bulk actions change runs in the store', async (env) => {
    const engine = await env.engine()
    registerAll(engine)
    const dashboard = dashboardOf(engine)
    const failed = (await engine.start('fail', {})).runId
    await engine.waitForRun(failed, { timeoutMs: 5_000 })
    const retried = await call(dashboard, `/api/runs/${failed}/retry`, { body: {} })
    assert.deepEqual(retried.json, { ok: true, positionsReset: 1 })
    const waiting: string[] = []
    for (let i = 0; i < 3; i++) waiting.push((await engine.start('wait', {})).runId)
    await env.settle()
    const signalled = await call(dashboard, `/api/runs/${waiting[0]}/signal`, {
      body: { name: 'go', payload: 1 },
    })
    assert.deepEqual(signalled.json, { ok: true, duplicate: false })
    assert.deepEqual(await engine.waitForRun(waiting[0] as string, { timeoutMs: 5_000 }), {
      runId: waiting[0],
      status: 'completed',
      output: 1,
    })
    const bulk = await call(dashboard, '/api/bulk/cancel', {
      body: { filter: { workflow: 'wait' }, reason: 'bulk' },
    })
    assert.deepEqual(bulk.json, {
      ok: true,
      matched: 2,
      applied: 2,
      failed: [],
      truncated: false,
      limit: 1000,
    })
    for (const runId of waiting.slice(1))
      assert.equal((await engine.getRun(runId))?.status, 'cancelled')
  })

  test('a dashboard over a non-driving engine acts on runs another engine executes', async (env) => {
    const worker = await env.engine()
    registerAll(worker)
    const viewer = await env.engine({ drive: false })
    const dashboard = dashboardOf(viewer)
    const list = await openStream(dashboard, '/api/stream/runs?workflow=wait')
    await list.until((e) => e.event === 'ready')
    const { runId } = await worker.start('wait', {})
    await env.settle()
    await list.until((e) => (e.data as { id: string }).id === runId)
    const live = await openStream(dashboard, `/api/stream/runs/${runId}`)
    await live.until((e) => e.event === 'run')
    const detail = await call(dashboard, `/api/runs/${runId}`)
    assert.equal(detail.json.run.status, 'waiting')
    assert.deepEqual((await call(dashboard, '/api/workflows')).json, { workflows: [] })
    await call(dashboard, `/api/runs/${runId}/signal`, {
      body: { name: 'go', payload: 'from the dashboard' },
    })
    // The worker finds the signal at a poll. One skip is not enough when a poll in flight
    // re-arms the next one past it, so skip fake time until the run's stream ends.
    const ended = live.until((e) => e.event === 'end')
    const events = await skipUntil(env, ended)
    assert.ok(events.some((e) => e.event === 'step' && (e.data as { name: string }).name === 'go'))
    await list.cancel()
    await dashboard.close()
    assert.deepEqual(await worker.waitForRun(runId, { timeoutMs: 5_000 }), {
      runId,
      status: 'completed',
      output: 'from the dashboard',
    })
  })

  test('lineage: tags filter lists and facets; retry with input and fork make derived runs', async (env) => {
    const engine = await env.engine()
    registerAll(engine)
    const dashboard = dashboardOf(engine)
    const vip = await engine.start('steps', 3, { runId: 'vip-1', tags: ['vip', 'eu'] })
    await engine.start('greet', 'x', { runId: 'plain-1', tags: ['eu'] })
    await engine.waitForRun(vip.runId, { timeoutMs: 5_000 })
    await env.settle()
    assert.deepEqual(await allIds(dashboard, 'tag=vip'), ['vip-1'])
    assert.deepEqual((await allIds(dashboard, 'tag=eu')).sort(), ['plain-1', 'vip-1'])
    const facets = await call(dashboard, '/api/facets?tag=vip')
    assert.deepEqual(facets.json.byWorkflow, [{ workflow: 'steps', count: 1 }])
    const retried = await call(dashboard, '/api/runs/vip-1/retry-with-input', {
      body: { input: 2 },
    })
    assert.equal(retried.status, 200)
    const forked = await call(dashboard, '/api/runs/vip-1/fork', { body: { fromSeq: 2 } })
    assert.equal(forked.status, 200)
    for (const id of [retried.json.runId, forked.json.runId])
      await engine.waitForRun(id, { timeoutMs: 5_000 })
    const detail = await call(dashboard, '/api/runs/vip-1')
    assert.equal(detail.json.run.tags.length, 2)
    assert.deepEqual(
      detail.json.run.lineage.derived.map((r: { id: string }) => r.id).sort(),
      [retried.json.runId, forked.json.runId].sort(),
    )
    const fork = await call(dashboard, `/api/runs/${encodeURIComponent(forked.json.runId)}`)
    assert.deepEqual(fork.json.run.lineage.origin, { kind: 'fork', runId: 'vip-1', fromSeq: 2 })
    assert.equal(fork.json.run.output, 3)
    const badFork = await call(dashboard, '/api/runs/vip-1/fork', { body: { fromSeq: 99 } })
    assert.equal(badFork.status, 400)
  })
})
