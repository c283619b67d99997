/**
 * Deleting runs from the dashboard over a memory store (docs/retention.md): `POST
 * api/runs/:id/delete` (engine.deleteRun) and `api/bulk/delete` (engine.purgeRuns) — what each
 * deletes and answers, what they refuse (an open run, a run an open parent still needs, a
 * filter without finished statuses) — read-only refusal, and `GET api/retention`.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Engine, MemoryStore, silentLogger, type EngineOptions } from '@cairn/core'
import { call, fixture, registerWorkflows, type Fixture } from './helpers.ts'

/** The helpers' workflows, plus `sum` (two children) and `hold` (a child, then a signal). */
async function engineWith(options: Partial<EngineOptions> = {}): Promise<Engine> {
  const engine = new Engine({ store: new MemoryStore(), logger: silentLogger, ...options })
  registerWorkflows(engine)
  engine.register('sum', 1, async (ctx, n: number) => {
    const a = await ctx.child<string>('greet', `a${n}`)
    const b = await ctx.child<string>('greet', `b${n}`)
    return `${a} ${b}`
  })
  engine.register('hold', 1, async (ctx) => {
    await ctx.child('greet', 'child')
    return ctx.waitForSignal('go')
  })
  await engine.startDriving()
  return engine
}

const present = async (engine: Engine, ids: readonly string[]) => {
  const found: string[] = []
  for (const id of ids) if ((await engine.getRun(id)) !== null) found.push(id)
  return found
}

async function finished(engine: Engine, workflow: string, input: unknown, runId: string) {
  await engine.start(workflow, input, { runId })
  await engine.waitForRun(runId, { timeoutMs: 5000 })
  return runId
}

/** A `hold` run waiting for its signal, and its completed child. */
async function heldParent(engine: Engine, runId: string): Promise<string> {
  await engine.start('hold', null, { runId })
  await engine.whenQuiet()
  const { runs } = await engine.listRuns({ parentRunId: runId })
  const child = runs[0]?.id
  assert.ok(child !== undefined)
  assert.equal((await engine.getRun(child))?.status, 'completed')
  assert.equal((await engine.getRun(runId))?.status, 'waiting')
  return child
}

void describe('dashboard: delete one run', () => {
  let engine: Engine
  let f: Fixture
  before(async () => {
    engine = await engineWith()
    f = await fixture({}, engine)
  })
  after(async () => {
    await f.close()
    await engine.close(50)
  })

  void test('a finished run goes with its children; deleting it again is 404', async () => {
    await finished(engine, 'sum', 1, 'sum-1')
    const { runs: children } = await engine.listRuns({ parentRunId: 'sum-1' })
    assert.equal(children.length, 2)
    await finished(engine, 'greet', 'x', 'kept')
    const { status, json } = await call(f.dashboard, '/api/runs/sum-1/delete', { body: {} })
    assert.equal(status, 200)
    assert.deepEqual(json, { ok: true, runs: 3 })
    assert.deepEqual(await present(engine, ['sum-1', ...children.map((r) => r.id)]), [])
    assert.deepEqual(await present(engine, ['kept']), ['kept'])
    const detail = await call(f.dashboard, '/api/runs/sum-1')
    assert.equal(detail.status, 404)
    const again = await call(f.dashboard, '/api/runs/sum-1/delete', { body: {} })
    assert.equal(again.status, 404)
    assert.equal(again.json.error.code, 'E_RUN_NOT_FOUND')
  })

  void test('every finished status can be deleted: a failed run too', async () => {
    await finished(engine, 'fail', {}, 'failed-1')
    const { json } = await call(f.dashboard, '/api/runs/failed-1/delete', { body: {} })
    assert.deepEqual(json, { ok: true, runs: 1 })
    assert.equal(await engine.getRun('failed-1'), null)
  })

  void test('an open run, and a finished child of an open parent, are 409 naming the blocker', async () => {
    const child = await heldParent(engine, 'held')
    const open = await call(f.dashboard, '/api/runs/held/delete', { body: {} })
    assert.equal(open.status, 409)
    assert.equal(open.json.error.code, 'E_RUN_NOT_DELETABLE')
    assert.equal(open.json.error.message, 'run "held" cannot be deleted: it is waiting')
    const needed = await call(f.dashboard, `/api/runs/${encodeURIComponent(child)}/delete`, {
      body: {},
    })
    assert.equal(needed.status, 409)
    assert.equal(needed.json.error.code, 'E_RUN_NOT_DELETABLE')
    assert.match(needed.json.error.message, /its parent "held" is waiting/)
    assert.deepEqual(await present(engine, ['held', child]), ['held', child], 'nothing deleted')
    await engine.signal({ runId: 'held', name: 'go' }, 'done')
    await engine.waitForRun('held', { timeoutMs: 5000 })
    const now = await call(f.dashboard, '/api/runs/held/delete', { body: {} })
    assert.deepEqual(now.json, { ok: true, runs: 2 }, 'once finished, with its child')
  })

  void test('a body with any field, or none, is 400; a non-JSON body 415', async () => {
    await finished(engine, 'greet', 'x', 'typo')
    const extra = await call(f.dashboard, '/api/runs/typo/delete', { body: { force: true } })
    assert.equal(extra.status, 400)
    assert.equal(extra.json.error.code, 'E_INVALID_ARGUMENT')
    const none = await call(f.dashboard, '/api/runs/typo/delete', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    })
    assert.equal(none.status, 400)
    const form = await call(f.dashboard, '/api/runs/typo/delete', {
      body: 'a=1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    })
    assert.equal(form.status, 415)
    const get = await call(f.dashboard, '/api/runs/typo/delete')
    assert.equal(get.status, 404, 'POST only')
    assert.deepEqual(await present(engine, ['typo']), ['typo'])
  })
})

void describe('dashboard: bulk delete (purge)', () => {
  let engine: Engine
  let f: Fixture
  before(async () => {
    engine = await engineWith()
    f = await fixture({ bulkLimit: 4 }, engine)
  })
  after(async () => {
    await f.close()
    await engine.close(50)
  })

  const purge = (body: unknown) => call(f.dashboard, '/api/bulk/delete', { body })

  void test('dryRun counts, then the oldest matching finished runs go, capped by bulkLimit', async () => {
    const greets: string[] = []
    for (let i = 0; i < 5; i++) greets.push(await finished(engine, 'greet', `g${i}`, `g-${i}`))
    await finished(engine, 'fail', {}, 'f-0')
    const dry = await purge({ filter: { status: 'completed', workflow: 'greet' }, dryRun: true })
    assert.equal(dry.status, 200)
    assert.deepEqual(dry.json, { ok: true, matched: 4, truncated: true, limit: 4 })
    assert.equal((await present(engine, greets)).length, 5, 'a dry run deletes nothing')
    const some = await purge({ filter: { status: 'completed', workflow: 'greet' }, limit: 2 })
    assert.deepEqual(some.json, {
      ok: true,
      roots: 2,
      runs: 2,
      refused: 0,
      refusals: [],
      limit: 2,
    })
    assert.deepEqual(await present(engine, greets), ['g-2', 'g-3', 'g-4'], 'oldest first')
    const rest = await purge({ filter: { status: ['completed'], workflow: 'greet' }, limit: 100 })
    assert.equal(rest.json.roots, 3)
    assert.equal(rest.json.limit, 4, 'a request limit is clamped to bulkLimit')
    assert.deepEqual(await present(engine, [...greets, 'f-0']), ['f-0'], 'other statuses kept')
  })

  void test('a run an open parent still needs is kept and reported', async () => {
    const child = await heldParent(engine, 'purge-held')
    const { json } = await purge({ filter: { status: 'completed' } })
    assert.equal(json.roots, 0)
    assert.equal(json.refused, 1)
    assert.deepEqual(json.refusals, [
      { runId: child, blocker: { runId: 'purge-held', status: 'waiting', relation: 'parent' } },
    ])
    assert.deepEqual(await present(engine, [child]), [child])
    await engine.signal({ runId: 'purge-held', name: 'go' }, 'done')
    await engine.waitForRun('purge-held', { timeoutMs: 5000 })
  })

  void test('bad input is 400 and deletes nothing', async () => {
    await finished(engine, 'greet', 'x', 'survivor')
    const cases: Array<[unknown, RegExp]> = [
      [{}, /filter is required/],
      [{ filter: {} }, /filter.status is required/],
      [{ filter: { workflow: 'greet' } }, /filter.status is required/],
      [{ filter: { status: ['completed', 'waiting'] } }, /waiting is not a finished status/],
      [{ filter: { status: 'sleeping' } }, /status must be one of/],
      [{ filter: { status: 'completed', stuckFor: '5' } }, /stuckFor only applies to pending/],
      [
        { filter: { status: 'completed', claimableBefore: '2026-01-01' } },
        /filter.claimableBefore selects open runs/,
      ],
      [
        { filter: { status: 'completed', workflow: 'greet', singletonKey: 'k' } },
        /filter.singletonKey selects open runs/,
      ],
      [{ filter: { status: 'completed', workflw: 'greet' } }, /unknown filter "workflw"/],
      [{ filter: { status: 'completed' }, limit: 'ten' }, /limit must be an integer/],
      [{ filter: { status: 'completed' }, limit: 1.5 }, /limit must be an integer/],
      [{ filter: { status: 'completed' }, dryRun: 'yes' }, /dryRun must be true or false/],
      [{ filter: { status: 'completed' }, sort: 'created' }, /unknown field "sort"/],
    ]
    for (const [body, message] of cases) {
      const { status, json } = await purge(body)
      assert.equal(status, 400, JSON.stringify(body))
      assert.equal(json.error.code, 'E_INVALID_ARGUMENT', JSON.stringify(body))
      assert.match(json.error.message, message, JSON.stringify(body))
    }
    assert.deepEqual(await present(engine, ['survivor']), ['survivor'])
  })
})

void describe('dashboard: deletion on a read-only dashboard', () => {
  let engine: Engine
  let f: Fixture
  before(async () => {
    engine = await engineWith()
    f = await fixture({ readOnly: true }, engine)
  })
  after(async () => {
    await f.close()
    await engine.close(50)
  })

  void test('both routes are 403 E_FORBIDDEN and nothing is deleted', async () => {
    await finished(engine, 'greet', 'x', 'ro-1')
    const one = await call(f.dashboard, '/api/runs/ro-1/delete', { body: {} })
    assert.equal(one.status, 403)
    assert.equal(one.json.error.code, 'E_FORBIDDEN')
    for (const dryRun of [false, true]) {
      const many = await call(f.dashboard, '/api/bulk/delete', {
        body: { filter: { status: 'completed' }, dryRun },
      })
      assert.equal(many.status, 403)
      assert.equal(many.json.error.code, 'E_FORBIDDEN')
    }
    assert.deepEqual(await present(engine, ['ro-1']), ['ro-1'])
  })
})

void describe('dashboard: GET api/retention', () => {
  void test("lists the engine's retention policies as configured", async () => {
    const engine = await engineWith({
      retention: {
        policies: [
          { statuses: ['completed'], maxAge: '7 days' },
          { name: 'failed-greets', workflow: 'greet', statuses: ['failed', 'dead'], maxCount: 10 },
        ],
        interval: '5m',
      },
    })
    const f = await fixture({ readOnly: true }, engine)
    try {
      const { status, json } = await call(f.dashboard, '/api/retention')
      assert.equal(status, 200)
      assert.deepEqual(json, {
        policies: [
          {
            name: '*:completed',
            workflow: null,
            statuses: ['completed'],
            maxAgeMs: 7 * 86_400_000,
            maxCount: null,
          },
          {
            name: 'failed-greets',
            workflow: 'greet',
            statuses: ['failed', 'dead'],
            maxAgeMs: null,
            maxCount: 10,
          },
        ],
        intervalMs: 300_000,
      })
      const anonymous = await call(f.dashboard, '/api/retention', { bearer: false })
      assert.equal(anonymous.status, 401)
    } finally {
      await f.close()
      await engine.close(50)
    }
  })

  void test('none configured: an empty list', async () => {
    const f = await fixture()
    try {
      const { json } = await call(f.dashboard, '/api/retention')
      assert.deepEqual(json, { policies: [], intervalMs: null })
    } finally {
      await f.close()
    }
  })
})
