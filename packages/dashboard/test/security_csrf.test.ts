/**
 * Security: CSRF on every state-changing route, and no state change on GET.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { LOCAL_ORIGIN, ORIGIN, TOKEN, call, fixture, type Fixture } from './helpers.ts'

const ACTIONS = ['retry', 'retry-with-input', 'fork', 'cancel', 'signal', 'continue', 'delete']

void describe('security: CSRF', () => {
  let f: Fixture
  let cookie: string
  let csrf: string
  let runId: string
  before(async () => {
    f = await fixture()
    const login = await call(f.dashboard, '/api/session', { body: { token: TOKEN }, bearer: false })
    cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] as string
    csrf = login.json.csrfToken
    runId = (await f.engine.start('wait', {})).runId
    await f.engine.whenQuiet()
  })
  after(() => f.close())

  const cancel = (headers: Record<string, string>, bearer = false) =>
    call(f.dashboard, `/api/runs/${runId}/cancel`, { body: {}, bearer, headers })

  void test('a cookie-authenticated state change without the CSRF header is 403 E_CSRF', async () => {
    const variants: Array<Record<string, string>> = [
      { cookie },
      { cookie, 'x-cairn-csrf': `${csrf}x` },
      { cookie, 'x-cairn-csrf': '' },
    ]
    for (const headers of variants) {
      const { status, json } = await cancel(headers)
      assert.equal(status, 403)
      assert.equal(json.error.code, 'E_CSRF')
    }
    for (const path of [
      '/api/bulk/cancel',
      '/api/bulk/retry',
      '/api/bulk/delete',
      `/api/runs/${runId}/signal`,
      `/api/runs/${runId}/delete`,
    ]) {
      const { status } = await call(f.dashboard, path, {
        body: {},
        bearer: false,
        headers: { cookie },
      })
      assert.equal(status, 403, path)
    }
    assert.equal((await f.engine.getRun(runId))?.status, 'waiting', 'nothing changed')
  })

  void test('a cross-origin or cross-site request is refused even with the token', async () => {
    const token = { cookie, 'x-cairn-csrf': csrf }
    const extras: Array<Record<string, string>> = [
      { origin: 'https://evil.test' },
      { referer: 'https://evil.test/page' },
      { 'sec-fetch-site': 'cross-site' },
      { origin: 'null' },
    ]
    for (const extra of extras) {
      const { status, json } = await cancel({ ...token, ...extra })
      assert.equal(status, 403, JSON.stringify(extra))
      assert.equal(json.error.code, 'E_CSRF')
    }
    const login = await call(f.dashboard, '/api/session', {
      body: { token: TOKEN },
      bearer: false,
      headers: { origin: 'https://evil.test' },
    })
    assert.equal(login.status, 403, 'login CSRF')
    assert.equal((await f.engine.getRun(runId))?.status, 'waiting', 'nothing changed')
  })

  void test('same origin with the session token passes; bearer clients are exempt', async () => {
    const other = (await f.engine.start('wait', {})).runId
    const signal = (headers: Record<string, string>, bearer: boolean) =>
      call(f.dashboard, `/api/runs/${other}/signal`, {
        body: { name: 'noise' },
        bearer,
        headers,
      })
    const sameOrigin = {
      cookie,
      'x-cairn-csrf': csrf,
      origin: ORIGIN,
      'sec-fetch-site': 'same-origin',
    }
    assert.equal((await signal(sameOrigin, false)).status, 200)
    assert.equal((await signal({}, true)).status, 200, 'bearer without CSRF header')
  })

  void test('open and authorize modes need the CSRF token too', async () => {
    for (const options of [
      { auth: undefined, development: true },
      { auth: { authorize: () => true } },
    ]) {
      const d = await fixture(options, f.engine)
      const origin = LOCAL_ORIGIN // an open dashboard answers only on a loopback name
      const { status, json } = await call(d.dashboard, `/api/runs/${runId}/cancel`, {
        body: {},
        bearer: false,
        origin,
      })
      assert.equal(status, 403)
      assert.equal(json.error.code, 'E_CSRF')
      const session = await call(d.dashboard, '/api/session', { bearer: false, origin })
      const anon = (session.headers.get('set-cookie') ?? '').split(';')[0] as string
      const ok = await call(d.dashboard, `/api/runs/${runId}/signal`, {
        body: { name: 'noise' },
        bearer: false,
        origin,
        headers: { cookie: anon, 'x-cairn-csrf': session.json.csrfToken },
      })
      assert.equal(ok.status, 200)
    }
  })
})

void describe('security: no state change on GET', () => {
  let f: Fixture
  before(async () => (f = await fixture()))
  after(() => f.close())

  void test('action routes do not answer GET or HEAD, and the run is untouched', async () => {
    const { runId } = await f.engine.start('wait', {})
    await f.engine.whenQuiet()
    const paths = [
      ...ACTIONS.map((a) => `/api/runs/${runId}/${a}?name=go`),
      '/api/bulk/cancel',
      '/api/bulk/retry',
      '/api/bulk/delete',
    ]
    for (const path of paths)
      for (const method of ['GET', 'HEAD']) {
        const { status } = await call(f.dashboard, path, { method })
        assert.equal(status, 404, `${method} ${path}`)
      }
    const run = await f.engine.getRun(runId)
    assert.equal(run?.status, 'waiting')
    assert.equal((await f.engine.getSteps(runId)).length, 0)
  })

  void test('read-only dashboards refuse every action with 403 E_FORBIDDEN', async () => {
    const ro = await fixture({ readOnly: true }, f.engine)
    const { runId } = await f.engine.start('wait', {})
    for (const path of [
      ...ACTIONS.map((a) => `/api/runs/${runId}/${a}`),
      '/api/bulk/cancel',
      '/api/bulk/delete',
    ]) {
      const { status, json } = await call(ro.dashboard, path, { body: {} })
      assert.equal(status, 403, path)
      assert.equal(json.error.code, 'E_FORBIDDEN')
    }
    assert.equal((await call(ro.dashboard, '/api/runs')).status, 200)
    // The console learns it from the session and offers no action.
    assert.equal((await call(ro.dashboard, '/api/session')).json.readOnly, true)
    assert.equal((await call(f.dashboard, '/api/session')).json.readOnly, false)
  })
})
