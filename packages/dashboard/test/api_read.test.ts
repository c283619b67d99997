/**
 * The read API over a memory store: lists, details, steps, workflows, base paths.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { toNodeListener } from '@cairn/dashboard'
import { call, fixture, type Fixture } from './helpers.ts'

void describe('dashboard read API', () => {
  let f: Fixture
  let greetId: string
  before(async () => {
    f = await fixture()
    greetId = (await f.engine.start('greet', 'Ada')).runId
    await f.engine.waitForRun(greetId, { timeoutMs: 5000 })
  })
  after(() => f.close())

  void test('GET api/runs lists summaries without payloads', async () => {
    const { status, json, headers } = await call(f.dashboard, '/api/runs')
    assert.equal(status, 200)
    assert.equal(headers.get('content-type'), 'application/json; charset=utf-8')
    assert.equal(headers.get('cache-control'), 'no-store')
    const run = json.runs.find((r: { id: string }) => r.id === greetId)
    assert.equal(run.status, 'completed')
    assert.equal(run.workflow, 'greet')
    assert.equal(typeof run.createdAt, 'string')
    assert.equal('input' in run, false)
    assert.equal('output' in run, false)
  })

  void test('GET api/runs/:id has the decoded payloads', async () => {
    const { status, json } = await call(f.dashboard, `/api/runs/${greetId}`)
    assert.equal(status, 200)
    assert.equal(json.run.input, 'Ada')
    assert.equal(json.run.output, 'hi Ada')
    assert.deepEqual(json.run.waits, [])
  })

  void test('GET api/runs/:id of an unknown run is 404 E_RUN_NOT_FOUND', async () => {
    const { status, json } = await call(f.dashboard, '/api/runs/nope')
    assert.equal(status, 404)
    assert.equal(json.error.code, 'E_RUN_NOT_FOUND')
  })

  void test('GET api/runs/:id/steps pages the timeline', async () => {
    const { json } = await call(f.dashboard, `/api/runs/${greetId}/steps`)
    assert.equal(json.steps.length, 1)
    assert.equal(json.steps[0].name, 'hello')
    assert.equal(json.steps[0].output, 'hi Ada')
    assert.equal(json.steps[0].input, null, 'a local step records no input')
    assert.equal(json.nextFromSeq, null)
  })

  void test('GET api/workflows lists the registered versions', async () => {
    const { json } = await call(f.dashboard, '/api/workflows')
    assert.deepEqual(
      json.workflows.map((w: { workflow: string }) => w.workflow),
      ['greet', 'fail', 'wait'],
    )
  })
})

void describe('dashboard read API: registered steps', () => {
  let f: Fixture
  before(async () => (f = await fixture()))
  after(() => f.close())

  void test('GET api/runs/:id/steps gives a registered step its input as JSON', async () => {
    f.engine.registerStep('quote', (order: { at: Date; skus: Set<string> }) => order.skus.size)
    f.engine.register('priced', 1, async (ctx, _input: unknown) =>
      ctx.step('quote', { at: new Date('2026-03-04T05:06:07Z'), skus: new Set(['a', 'b']) }),
    )
    const { runId } = await f.engine.start('priced', null)
    await f.engine.waitForRun(runId, { timeoutMs: 5000 })
    const { json } = await call(f.dashboard, `/api/runs/${runId}/steps`)
    assert.deepEqual(
      json.steps.map((s: { name: string; input: unknown; output: unknown }) => [
        s.name,
        s.input,
        s.output,
      ]),
      [['quote', { at: '2026-03-04T05:06:07.000Z', skus: ['a', 'b'] }, 2]],
    )
  })
})

void describe('dashboard under a base path', () => {
  let f: Fixture
  before(async () => (f = await fixture({ basePath: '/admin/cairn/' })))
  after(() => f.close())

  void test('everything lives under the base path', async () => {
    assert.equal((await call(f.dashboard, '/api/runs', { base: '/admin/cairn' })).status, 200)
    assert.equal((await call(f.dashboard, '/api/runs')).status, 404)
    const page = await call(f.dashboard, '/', { base: '/admin/cairn' })
    assert.equal(page.status, 200)
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/)
  })

  void test('the bare base path redirects to its trailing-slash form', async () => {
    const { status, headers } = await call(f.dashboard, '', { base: '/admin/cairn' })
    assert.equal(status, 308)
    assert.equal(headers.get('location'), '/admin/cairn/')
  })
})

void describe('dashboard metrics route', () => {
  void test('GET metrics serves the metrics text behind the same auth', async () => {
    const metrics = {
      contentType: 'text/plain; version=0.0.4; charset=utf-8',
      render: async () => 'cairn_runs_started_total 3\n',
    }
    const f = await fixture({ metrics })
    try {
      const ok = await call(f.dashboard, '/metrics')
      assert.equal(ok.status, 200)
      assert.equal(ok.text, 'cairn_runs_started_total 3\n')
      assert.equal(ok.headers.get('content-type'), metrics.contentType)
      assert.equal((await call(f.dashboard, '/metrics', { bearer: false })).status, 401)
    } finally {
      await f.close()
    }
    const without = await fixture()
    try {
      assert.equal((await call(without.dashboard, '/metrics')).status, 404)
    } finally {
      await without.close()
    }
  })

  void test("metrics: true serves the engine metrics (counting this engine's runs)", async () => {
    const f = await fixture({ metrics: true })
    try {
      const { runId } = await f.engine.start('greet', 'x')
      await f.engine.waitForRun(runId, { timeoutMs: 5000 })
      const { status, text, headers } = await call(f.dashboard, '/metrics')
      assert.equal(status, 200)
      assert.match(headers.get('content-type') ?? '', /^text\/plain/)
      assert.match(text, /^cairn_runs_completed_total\{workflow="greet"\} 1$/m)
    } finally {
      await f.close()
    }
  })
})

void describe('dashboard node adapter', () => {
  void test('mounting leaves the global Request and Response alone', async () => {
    const f = await fixture()
    try {
      const before = [globalThis.Request, globalThis.Response]
      toNodeListener(f.dashboard)
      assert.deepEqual([globalThis.Request, globalThis.Response], before)
    } finally {
      await f.close()
    }
  })
})
