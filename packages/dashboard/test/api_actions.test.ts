/**
 * Actions and bulk actions over a memory store: what each does to the run and what it answers.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Engine, MemoryStore, silentLogger, type ListRunsQuery } from '@cairn/core'
import { FakeClock } from '@cairn/core/testing'
import { call, fixture, registerWorkflows, type Fixture } from './helpers.ts'

void describe('dashboard actions', () => {
  let f: Fixture
  before(async () => (f = await fixture()))
  after(() => f.close())

  const failedRun = async () => {
    const { runId } = await f.engine.start('fail', {})
    await f.engine.waitForRun(runId, { timeoutMs: 5000 })
    return runId
  }
  const waitingRun = async () => {
    const { runId } = await f.engine.start('wait', {})
    await f.engine.whenQuiet()
    return runId
  }

  void test('retry requeues a failed run', async () => {
    const runId = await failedRun()
    const { status, json } = await call(f.dashboard, `/api/runs/${runId}/retry`, { body: {} })
    assert.equal(status, 200)
    assert.deepEqual(json, { ok: true, positionsReset: 1 })
    const again = await call(f.dashboard, `/api/runs/${runId}/retry`, { body: {} })
    assert.ok([200, 409].includes(again.status))
  })

  void test('retry of a completed run is 409 E_RUN_NOT_REQUEUEABLE', async () => {
    const { runId } = await f.engine.start('greet', 'x')
    await f.engine.waitForRun(runId, { timeoutMs: 5000 })
    const { status, json } = await call(f.dashboard, `/api/runs/${runId}/retry`, { body: {} })
    assert.equal(status, 409)
    assert.equal(json.error.code, 'E_RUN_NOT_REQUEUEABLE')
  })

  void test('signal delivers a payload to a waiting run, deduplicated by signalId', async () => {
    const runId = await waitingRun()
    const detail = await call(f.dashboard, `/api/runs/${runId}`)
    assert.deepEqual(
      detail.json.run.waits.map((w: { kind: string; name: string }) => [w.kind, w.name]),
      [['signal', 'go']],
    )
    const body = { name: 'go', payload: { ok: 1 }, signalId: 's-1' }
    const first = await call(f.dashboard, `/api/runs/${runId}/signal`, { body })
    assert.deepEqual(first.json, { ok: true, duplicate: false })
    const second = await call(f.dashboard, `/api/runs/${runId}/signal`, { body })
    assert.deepEqual(second.json, { ok: true, duplicate: true })
    const outcome = await f.engine.waitForRun(runId, { timeoutMs: 5000 })
    assert.deepEqual(outcome, { runId, status: 'completed', output: { ok: 1 } })
  })

  void test('cancel ends an open run; a finished one is 409 E_RUN_TERMINAL', async () => {
    const runId = await waitingRun()
    const body = { reason: 'no longer needed' }
    const first = await call(f.dashboard, `/api/runs/${runId}/cancel`, { body })
    assert.deepEqual(first.json, { ok: true })
    assert.equal((await f.engine.getRun(runId))?.status, 'cancelled')
    const second = await call(f.dashboard, `/api/runs/${runId}/cancel`, { body })
    assert.equal(second.status, 409)
    assert.equal(second.json.error.code, 'E_RUN_TERMINAL')
  })

  void test('continue on a run at no breakpoint is 409 E_NOT_AT_BREAKPOINT', async () => {
    const runId = await waitingRun()
    const { status, json } = await call(f.dashboard, `/api/runs/${runId}/continue`, { body: {} })
    assert.equal(status, 409)
    assert.equal(json.error.code, 'E_NOT_AT_BREAKPOINT')
  })

  void test('a payload the codec refuses is 400 E_NOT_SERIALIZABLE and nothing is written', async () => {
    // Valid JSON well under the body cap, nested deeper than the codec's 512 levels.
    let deep: unknown = 'bottom'
    for (let i = 0; i < 600; i++) deep = { deeper: deep }
    const runId = await waitingRun()
    const signal = await call(f.dashboard, `/api/runs/${runId}/signal`, {
      body: { name: 'go', payload: deep },
    })
    assert.equal(signal.status, 400)
    assert.equal(signal.json.error.code, 'E_NOT_SERIALIZABLE')
    const runsBefore = (await f.engine.listRuns({ limit: 1000 })).runs.length
    const retried = await call(f.dashboard, `/api/runs/${runId}/retry-with-input`, {
      body: { input: deep },
    })
    assert.equal(retried.status, 400)
    assert.equal(retried.json.error.code, 'E_NOT_SERIALIZABLE')
    assert.equal((await f.engine.listRuns({ limit: 1000 })).runs.length, runsBefore, 'no run made')
    await f.engine.whenQuiet()
    assert.equal((await f.engine.getRun(runId))?.status, 'waiting', 'no signal delivered')
    // The wait takes the first `go` signal: this one, since the refused one was never stored.
    await call(f.dashboard, `/api/runs/${runId}/signal`, { body: { name: 'go', payload: 'ok' } })
    const outcome = await f.engine.waitForRun(runId, { timeoutMs: 5000 })
    assert.deepEqual(outcome, { runId, status: 'completed', output: 'ok' })
  })

  void test('actions on an unknown run are 404; unknown fields are 400', async () => {
    const missing = await call(f.dashboard, '/api/runs/nope/cancel', { body: {} })
    assert.equal(missing.status, 404)
    assert.equal(missing.json.error.code, 'E_RUN_NOT_FOUND')
    const runId = await waitingRun()
    const typo = await call(f.dashboard, `/api/runs/${runId}/cancel`, { body: { reasn: 'x' } })
    assert.equal(typo.status, 400)
    assert.equal(typo.json.error.code, 'E_INVALID_ARGUMENT')
    const noName = await call(f.dashboard, `/api/runs/${runId}/signal`, { body: {} })
    assert.equal(noName.status, 400)
  })
})

void describe('dashboard bulk actions', () => {
  let f: Fixture
  before(async () => (f = await fixture({ bulkLimit: 3 })))
  after(() => f.close())

  void test('bulk cancel applies to open runs of the filter, capped by bulkLimit', async () => {
    const waiting: string[] = []
    for (let i = 0; i < 5; i++) waiting.push((await f.engine.start('wait', {})).runId)
    const { runId: done } = await f.engine.start('greet', 'x')
    await f.engine.waitForRun(done, { timeoutMs: 5000 })
    await f.engine.whenQuiet()
    const dry = await call(f.dashboard, '/api/bulk/cancel', {
      body: { filter: { workflow: 'wait' }, dryRun: true, limit: 100 },
    })
    // The requested 100 is clamped to bulkLimit, and the answer says so.
    assert.deepEqual(dry.json, {
      ok: true,
      matched: 3,
      applied: 0,
      failed: [],
      truncated: true,
      limit: 3,
    })
    assert.equal((await f.engine.listRuns({ status: 'cancelled' })).runs.length, 0, 'dry run')
    const real = await call(f.dashboard, '/api/bulk/cancel', {
      body: { filter: { workflow: 'wait' }, reason: 'bulk' },
    })
    assert.deepEqual(real.json, {
      ok: true,
      matched: 3,
      applied: 3,
      failed: [],
      truncated: true,
      limit: 3,
    })
    const rest = await call(f.dashboard, '/api/bulk/cancel', { body: { filter: {} } })
    assert.deepEqual(rest.json, {
      ok: true,
      matched: 2,
      applied: 2,
      failed: [],
      truncated: false,
      limit: 3,
    })
    assert.equal((await f.engine.getRun(done))?.status, 'completed', 'finished runs untouched')
  })

  void test('bulk retry only touches failed runs; a status filter narrows it', async () => {
    const { runId } = await f.engine.start('fail', {})
    await f.engine.waitForRun(runId, { timeoutMs: 5000 })
    const none = await call(f.dashboard, '/api/bulk/retry', {
      body: { filter: { status: 'completed' } },
    })
    assert.equal(none.json.matched, 0)
    const some = await call(f.dashboard, '/api/bulk/retry', {
      body: { filter: { workflow: 'fail' } },
    })
    assert.deepEqual(some.json, {
      ok: true,
      matched: 1,
      applied: 1,
      failed: [],
      truncated: false,
      limit: 3,
    })
  })

  void test("one run's failure is listed with its code and the others are acted on", async () => {
    const ids: string[] = []
    for (let i = 0; i < 3; i++)
      ids.push((await f.engine.start('wait', {}, { tags: ['partial'] })).runId)
    await f.engine.whenQuiet()
    const [, gone] = ids as [string, string, string]
    // Another process cancels one run after the bulk action listed it and before it acts.
    const listRuns = f.engine.listRuns
    f.engine.listRuns = async <I, O>(query?: ListRunsQuery) => {
      f.engine.listRuns = listRuns
      const page = await f.engine.listRuns<I, O>(query)
      await f.engine.cancel(gone, { reason: 'elsewhere' })
      return page
    }
    const { status, json } = await call(f.dashboard, '/api/bulk/cancel', {
      body: { filter: { tag: 'partial' }, reason: 'bulk' },
    })
    f.engine.listRuns = listRuns
    assert.equal(status, 200)
    assert.deepEqual(json, {
      ok: true,
      matched: 3,
      applied: 2,
      failed: [{ runId: gone, code: 'E_RUN_TERMINAL' }],
      truncated: false,
      limit: 3,
    })
    for (const runId of ids) assert.equal((await f.engine.getRun(runId))?.status, 'cancelled')
    const reasons = await Promise.all(ids.map((id) => f.engine.getRun(id)))
    assert.deepEqual(
      reasons.map((run) => run?.error?.message),
      ids.map((id) => (id === gone ? 'elsewhere' : 'bulk')),
      "the listed run kept the other process's cancel; the rest got the bulk one",
    )
  })

  void test('bulk retry: a run another process retried first is listed, the rest requeued', async () => {
    // Failed runs made by a driving engine; then a dashboard over an engine that does not
    // drive, so requeued runs stay pending for the assertions.
    const store = new MemoryStore()
    const worker = new Engine({ store, logger: silentLogger })
    registerWorkflows(worker)
    await worker.startDriving()
    const ids: string[] = []
    for (let i = 0; i < 3; i++)
      ids.push((await worker.start('fail', {}, { tags: ['again'] })).runId)
    for (const runId of ids) await worker.waitForRun(runId, { timeoutMs: 5000 })
    await worker.close(50)
    const viewer = new Engine({ store, logger: silentLogger })
    const dash = await fixture({}, viewer)
    const [, first] = ids as [string, string, string]
    const listRuns = viewer.listRuns
    viewer.listRuns = async <I, O>(query?: ListRunsQuery) => {
      viewer.listRuns = listRuns
      const page = await viewer.listRuns<I, O>(query)
      await viewer.requeue(first)
      return page
    }
    const { status, json } = await call(dash.dashboard, '/api/bulk/retry', {
      body: { filter: { tag: 'again' } },
    })
    viewer.listRuns = listRuns
    assert.equal(status, 200)
    assert.deepEqual(json, {
      ok: true,
      matched: 3,
      applied: 2,
      failed: [{ runId: first, code: 'E_RUN_NOT_REQUEUEABLE' }],
      truncated: false,
      limit: 1000,
    })
    for (const runId of ids) assert.equal((await viewer.getRun(runId))?.status, 'pending')
    await dash.close()
    await viewer.close(50)
  })

  void test('bulkLimit is 1 to 10000, refused outside; a request limit is clamped to it', async () => {
    const most = await fixture({ bulkLimit: 10_000 }, f.engine)
    const dry = await call(most.dashboard, '/api/bulk/cancel', {
      body: { filter: {}, dryRun: true, limit: 1_000_000 },
    })
    assert.equal(dry.json.limit, 10_000)
    await most.close()
    for (const bulkLimit of [50_000, 0, Number.NaN, '5' as unknown as number])
      await assert.rejects(fixture({ bulkLimit }, f.engine), { code: 'E_INVALID_ARGUMENT' })
  })

  void test('a bulk filter with an unknown key is refused before anything is touched', async () => {
    const { status, json } = await call(f.dashboard, '/api/bulk/cancel', {
      body: { filter: { workflw: 'wait' } },
    })
    assert.equal(status, 400)
    assert.equal(json.error.code, 'E_INVALID_ARGUMENT')
  })
})

void describe('bulk actions check each run against the filter themselves', () => {
  // Runs nobody drives stay pending: the old ones stuck, the new one claimable just now.
  let f: Fixture
  const clock = new FakeClock()
  before(async () => {
    const engine = new Engine({ store: new MemoryStore(), logger: silentLogger, clock })
    registerWorkflows(engine)
    f = await fixture({}, engine)
    for (const runId of ['old-1', 'old-2']) await engine.start('wait', {}, { runId })
    await clock.advance(600_000)
    await engine.start('wait', {}, { runId: 'new' })
  })
  after(async () => {
    await f.close()
    await f.engine.close(50)
  })

  /** The engine's listRuns as a store that ignores claimableBefore would answer it. */
  const ignoringClaimableBefore = () => {
    const listRuns = f.engine.listRuns
    f.engine.listRuns = async <I, O>(query?: ListRunsQuery) => {
      const { claimableBefore: _ignored, ...rest } = query ?? {}
      return listRuns.call(f.engine, rest) as ReturnType<typeof listRuns<I, O>>
    }
    return () => (f.engine.listRuns = listRuns)
  }

  for (const filter of [
    { stuckFor: '5' },
    { claimableBefore: new Date(clock.now() + 300_000).toISOString() },
  ])
    void test(`a store ignoring claimableBefore does not widen a cancel (${Object.keys(filter)[0]})`, async () => {
      const restore = ignoringClaimableBefore()
      try {
        const dry = await call(f.dashboard, '/api/bulk/cancel', { body: { filter, dryRun: true } })
        assert.equal(dry.json.matched, 2, JSON.stringify(dry.json))
      } finally {
        restore()
      }
      assert.equal((await f.engine.listRuns({ status: 'pending' })).runs.length, 3, 'dry run')
    })

  void test('the runs that still match are cancelled, the others left open', async () => {
    const restore = ignoringClaimableBefore()
    try {
      const { json } = await call(f.dashboard, '/api/bulk/cancel', {
        body: { filter: { stuckFor: '5' }, reason: 'stuck' },
      })
      assert.deepEqual(json, {
        ok: true,
        matched: 2,
        applied: 2,
        failed: [],
        truncated: false,
        limit: 1000,
      })
    } finally {
      restore()
    }
    const statuses = await Promise.all(['old-1', 'old-2', 'new'].map((id) => f.engine.getRun(id)))
    assert.deepEqual(
      statuses.map((run) => run?.status),
      ['cancelled', 'cancelled', 'pending'],
    )
  })
})
