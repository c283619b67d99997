/**
 * Schedules in the dashboard's API: `GET api/schedules` (paged by `after`), `GET
 * api/schedules/:id` with its last run's status, and the actions pause, resume and trigger —
 * with the run actions' protections (CSRF, read-only, POST only, auth) and 404
 * E_SCHEDULE_NOT_FOUND for an unknown id. A memory store and a fake clock.
 */
import assert from 'node:assert/strict'
import { test, type TestContext } from 'node:test'
import { Engine, MemoryStore, silentLogger } from '@cairn/core'
import { FakeClock, settle } from '@cairn/core/testing'
import { call, fixture, TOKEN } from './helpers.ts'

const MINUTE = 60_000
const T0 = Date.UTC(2026, 0, 5, 12, 0, 0)
const iso = (ms: number) => new Date(ms).toISOString()

async function scheduledWorld(t: TestContext) {
  const clock = new FakeClock(T0)
  const engine = new Engine({ store: new MemoryStore(), logger: silentLogger, clock })
  clock.settler = async () => {
    await settle()
    await engine.whenQuiet()
  }
  engine.register('report', 1, async (ctx, input: unknown) => ctx.localStep('note', () => input))
  engine.register('hold', 1, async (ctx) => ctx.waitForSignal('go'))
  await engine.startDriving()
  t.after(() => engine.close(0))
  const f = await fixture({}, engine)
  t.after(() => f.close())
  await engine.schedule('minutely', { workflow: 'report', everyMs: MINUTE, input: { n: 1 } })
  await engine.schedule('nightly', {
    workflow: 'hold',
    cron: '0 2 * * *',
    timezone: 'Europe/Paris',
    overlap: 'bufferOne',
  })
  await engine.schedule('team/weekly', { workflow: 'report', cron: '0 9 * * 1' })
  return { engine, clock, f }
}

void test('GET api/schedules lists schedules in id order with their last run and status', async (t) => {
  const { engine, clock, f } = await scheduledWorld(t)
  await clock.advance(MINUTE)
  const lastRunId = `sch:minutely:${iso(T0 + MINUTE)}`
  assert.equal((await engine.waitForRun(lastRunId, { timeoutMs: 5_000 })).status, 'completed')

  const { status, json } = await call(f.dashboard, '/api/schedules')
  assert.equal(status, 200)
  assert.deepEqual(
    json.schedules.map((s: { id: string }) => s.id),
    ['minutely', 'nightly', 'team/weekly'],
  )
  assert.equal(json.nextAfter, null)
  const [minutely, nightly] = json.schedules
  assert.deepEqual(minutely, {
    id: 'minutely',
    workflow: 'report',
    version: null,
    cron: null,
    timezone: null,
    everyMs: MINUTE,
    jitterMs: 0,
    startAt: null,
    endAt: null,
    overlap: 'skip',
    maxCatchup: 0,
    inputComputed: false,
    paused: false,
    nextAt: iso(T0 + 2 * MINUTE),
    upcoming: [2, 3, 4, 5, 6].map((k) => iso(T0 + k * MINUTE)),
    lastWindowAt: iso(T0 + MINUTE),
    lastRunId,
    lastRun: { id: lastRunId, status: 'completed' },
    bufferedWindowAt: null,
    fired: 1,
    skipped: 0,
    revision: minutely.revision,
    createdAt: iso(T0),
    updatedAt: minutely.updatedAt,
    specError: null,
  })
  // 02:00 in Paris (UTC+1 in January) is 01:00 UTC.
  assert.deepEqual(
    [nightly.cron, nightly.timezone, nightly.overlap, nightly.nextAt, nightly.lastRun],
    ['0 2 * * *', 'Europe/Paris', 'bufferOne', '2026-01-06T01:00:00.000Z', null],
  )

  // Paging: `after` the last id of a full page.
  const first = await call(f.dashboard, '/api/schedules?limit=2')
  assert.deepEqual(
    first.json.schedules.map((s: { id: string }) => s.id),
    ['minutely', 'nightly'],
  )
  assert.equal(first.json.nextAfter, 'nightly')
  const second = await call(f.dashboard, `/api/schedules?limit=2&after=${first.json.nextAfter}`)
  assert.deepEqual(
    second.json.schedules.map((s: { id: string }) => s.id),
    ['team/weekly'],
  )
  assert.equal(second.json.nextAfter, null)

  for (const query of ['limit=x', 'color=red', 'after=a&after=b']) {
    const bad = await call(f.dashboard, `/api/schedules?${query}`)
    assert.equal(bad.status, 400, query)
    assert.equal(bad.json.error.code, 'E_INVALID_ARGUMENT', query)
  }
  assert.equal((await call(f.dashboard, '/api/schedules', { bearer: false })).status, 401)
})

void test('GET api/schedules/:id shows one schedule; an unknown id is 404 E_SCHEDULE_NOT_FOUND', async (t) => {
  const { engine, clock, f } = await scheduledWorld(t)
  const { runId } = await engine.triggerSchedule('minutely')
  await engine.waitForRun(runId, { timeoutMs: 5_000 })
  await clock.advance(MINUTE)
  const one = await call(f.dashboard, '/api/schedules/minutely')
  assert.equal(one.status, 200)
  assert.equal(one.json.schedule.id, 'minutely')
  assert.deepEqual(one.json.schedule.lastRun, {
    id: `sch:minutely:${iso(T0 + MINUTE)}`,
    status: 'completed',
  })
  // An id with a slash travels percent-encoded.
  const slashed = await call(f.dashboard, `/api/schedules/${encodeURIComponent('team/weekly')}`)
  assert.equal(slashed.status, 200)
  assert.equal(slashed.json.schedule.id, 'team/weekly')
  const missing = await call(f.dashboard, '/api/schedules/nope')
  assert.equal(missing.status, 404)
  assert.equal(missing.json.error.code, 'E_SCHEDULE_NOT_FOUND')
})

void test('pause, resume and trigger act on the schedule and answer { ok, … }', async (t) => {
  const { engine, clock, f } = await scheduledWorld(t)
  const paused = await call(f.dashboard, '/api/schedules/minutely/pause', { body: {} })
  assert.equal(paused.status, 200)
  assert.equal(paused.json.ok, true)
  assert.deepEqual(
    [paused.json.schedule.paused, paused.json.schedule.nextAt, paused.json.schedule.upcoming],
    [true, null, []],
  )
  await clock.advance(3 * MINUTE)
  assert.equal((await engine.getSchedule('minutely'))?.fired, 0, 'nothing fires while paused')

  const resumedAt = clock.now()
  const resumed = await call(f.dashboard, '/api/schedules/minutely/resume', { body: {} })
  assert.equal(resumed.status, 200)
  assert.equal(resumed.json.schedule.paused, false)
  assert.equal(resumed.json.schedule.nextAt, iso(resumedAt + MINUTE))
  await clock.advance(MINUTE)
  assert.equal((await engine.getSchedule('minutely'))?.fired, 1)

  const triggered = await call(f.dashboard, '/api/schedules/nightly/trigger', { body: {} })
  assert.equal(triggered.status, 200)
  assert.deepEqual(triggered.json, { ok: true, runId: `sch:nightly:manual:${iso(clock.now())}` })
  await engine.whenQuiet()
  assert.equal((await engine.getRun(triggered.json.runId))?.status, 'waiting')

  for (const action of ['pause', 'resume', 'trigger']) {
    const missing = await call(f.dashboard, `/api/schedules/nope/${action}`, { body: {} })
    assert.equal(missing.status, 404, action)
    assert.equal(missing.json.error.code, 'E_SCHEDULE_NOT_FOUND', action)
    const typo = await call(f.dashboard, `/api/schedules/minutely/${action}`, {
      body: { force: true },
    })
    assert.equal(typo.status, 400, action)
    assert.equal(typo.json.error.code, 'E_INVALID_ARGUMENT', action)
  }
})

void test('schedule actions: read-only 403, CSRF 403, never on GET, nothing changed', async (t) => {
  const { engine, f } = await scheduledWorld(t)
  const before = await engine.getSchedule('minutely')
  const runsBefore = (await engine.listRuns({ limit: 100 })).runs.length
  const actions = ['pause', 'resume', 'trigger'].map((a) => `/api/schedules/minutely/${a}`)

  const ro = await fixture({ readOnly: true }, engine)
  t.after(() => ro.close())
  for (const path of actions) {
    const { status, json } = await call(ro.dashboard, path, { body: {} })
    assert.equal(status, 403, path)
    assert.equal(json.error.code, 'E_FORBIDDEN', path)
  }
  assert.equal((await call(ro.dashboard, '/api/schedules')).status, 200, 'reads still answer')
  assert.equal((await call(ro.dashboard, '/api/schedules/minutely')).status, 200)

  const login = await call(f.dashboard, '/api/session', { body: { token: TOKEN }, bearer: false })
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] as string
  for (const path of actions)
    for (const headers of [
      { cookie },
      { cookie, 'x-cairn-csrf': `${login.json.csrfToken}x` },
    ] as Array<Record<string, string>>) {
      const { status, json } = await call(f.dashboard, path, { body: {}, bearer: false, headers })
      assert.equal(status, 403, path)
      assert.equal(json.error.code, 'E_CSRF', path)
    }
  for (const path of actions)
    for (const method of ['GET', 'HEAD']) {
      const { status } = await call(f.dashboard, path, { method })
      assert.equal(status, 404, `${method} ${path}`)
    }
  for (const path of actions) {
    const { status } = await call(f.dashboard, path, { body: {}, bearer: false })
    assert.equal(status, 401, path)
  }

  const after = await engine.getSchedule('minutely')
  assert.deepEqual([after?.paused, after?.revision], [before?.paused, before?.revision])
  assert.equal((await engine.listRuns({ limit: 100 })).runs.length, runsBefore, 'no run started')
  // The same session with its token passes.
  const ok = await call(f.dashboard, '/api/schedules/minutely/pause', {
    body: {},
    bearer: false,
    headers: { cookie, 'x-cairn-csrf': login.json.csrfToken },
  })
  assert.equal(ok.status, 200)
})
