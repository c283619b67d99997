/**
 * Security: authentication fails closed, bearer tokens, the signed session cookie, and the
 * app's authorize hook.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { encodeSession, newSession } from '../src/auth/session_cookie.ts'
import {
  LOCAL_ORIGIN,
  SECRET,
  TOKEN,
  call,
  capturingLogger,
  fixture,
  type Fixture,
} from './helpers.ts'

const PROTECTED = ['/api/runs', '/api/runs/x', '/api/runs/x/steps', '/api/facets', '/api/workflows']

const cookieOf = (setCookie: string | null) => (setCookie ?? '').split(';')[0] as string

void describe('security: fail closed', () => {
  let f: Fixture
  before(async () => (f = await fixture({ auth: undefined, development: false })))
  after(() => f.close())

  void test('with no auth outside development every API route is 401', async () => {
    for (const path of [...PROTECTED, '/api/stream/runs']) {
      const { status, json } = await call(f.dashboard, path, { bearer: false })
      assert.equal(status, 401, path)
      assert.equal(json.error.code, 'E_UNAUTHORIZED')
    }
    const action = await call(f.dashboard, '/api/runs/x/cancel', { body: {}, bearer: false })
    assert.equal(action.status, 401)
  })

  void test('the login page, its assets and api/session stay reachable', async () => {
    assert.equal((await call(f.dashboard, '/', { bearer: false })).status, 200)
    const session = await call(f.dashboard, '/api/session', { bearer: false })
    assert.equal(session.status, 200)
    assert.equal(session.json.authenticated, false)
    assert.equal(session.json.configured, false)
  })

  void test('development mode with no auth is open, on loopback names only', async () => {
    const open = await fixture({ auth: undefined, development: true }, f.engine)
    const local = { bearer: false, origin: LOCAL_ORIGIN }
    assert.equal((await call(open.dashboard, '/api/runs', local)).status, 200)
    assert.equal((await call(open.dashboard, '/api/session', local)).json.mode, 'open')
  })

  void test('DNS rebinding: an open dashboard refuses any name but a loopback one, on every route', async () => {
    const open = await fixture({ auth: undefined, development: true }, f.engine)
    const run = (await f.engine.start('wait', {})).runId
    await f.engine.whenQuiet()
    // The attacker's page, its name re-pointed at 127.0.0.1: same origin in the browser's eyes.
    for (const origin of [
      'http://attacker.example:4000',
      'http://127.0.0.1.nip.io:4000',
      'http://0.0.0.0:4000',
      'http://192.168.1.5:4000',
    ]) {
      const headers = { origin }
      for (const [path, body] of [
        ['/', undefined],
        ['/api/runs', undefined],
        ['/api/session', undefined],
        ['/assets/app.js', undefined],
        [`/api/runs/${run}/signal`, { name: 'go' }],
      ] as const) {
        const { status, json } = await call(open.dashboard, path, {
          bearer: false,
          origin,
          headers,
          body,
        })
        assert.equal(status, 421, `${origin}${path}`)
        assert.equal(json?.error?.code, 'E_HOST_NOT_ALLOWED')
      }
    }
    assert.equal((await f.engine.getRun(run))?.status, 'waiting', 'nothing reached the run')
    for (const origin of [
      'http://localhost:4000',
      'http://LOCALHOST:4000',
      'http://app.localhost:4000',
      'http://127.0.0.1:4000',
      'http://127.1.2.3',
      'http://[::1]:4000',
    ]) {
      assert.equal(
        (await call(open.dashboard, '/api/runs', { bearer: false, origin })).status,
        200,
        origin,
      )
    }
    // With auth, any name: every request is authenticated.
    const tokened = await fixture({}, f.engine)
    assert.equal(
      (await call(tokened.dashboard, '/api/runs', { origin: 'http://ops.example.com' })).status,
      200,
    )
  })
})

void describe('security: bearer tokens', () => {
  let f: Fixture
  before(async () => (f = await fixture()))
  after(() => f.close())

  void test('the right token lets in; a wrong or malformed one is 401', async () => {
    assert.equal((await call(f.dashboard, '/api/runs')).status, 200)
    for (const authorization of [`Bearer ${TOKEN}x`, 'Bearer', `Basic ${TOKEN}`, TOKEN]) {
      const { status } = await call(f.dashboard, '/api/runs', {
        bearer: false,
        headers: { authorization },
      })
      assert.equal(status, 401, authorization)
    }
  })

  void test('a wrong bearer token is refused even beside a valid session cookie', async () => {
    const login = await call(f.dashboard, '/api/session', { body: { token: TOKEN }, bearer: false })
    const cookie = cookieOf(login.headers.get('set-cookie'))
    const { status } = await call(f.dashboard, '/api/runs', {
      bearer: false,
      headers: { cookie, authorization: 'Bearer not-the-token-at-all' },
    })
    assert.equal(status, 401)
  })
})

void describe('security: session cookie login', () => {
  let f: Fixture
  before(async () => (f = await fixture({ basePath: '/ops' })))
  after(() => f.close())
  const get = (cookie: string) =>
    call(f.dashboard, '/api/runs', { base: '/ops', bearer: false, headers: { cookie } })

  void test('logging in sets a signed HttpOnly SameSite=Strict cookie scoped to the base', async () => {
    const wrong = await call(f.dashboard, '/api/session', {
      base: '/ops',
      body: { token: 'guessing-the-token-here' },
      bearer: false,
    })
    assert.equal(wrong.status, 401)
    assert.equal(wrong.headers.get('set-cookie'), null)
    const login = await call(f.dashboard, '/api/session', {
      base: '/ops',
      body: { token: TOKEN },
      bearer: false,
    })
    assert.equal(login.status, 200)
    const setCookie = login.headers.get('set-cookie') ?? ''
    assert.match(
      setCookie,
      /^cairn_session=[^;]+; Path=\/ops; Max-Age=\d+; HttpOnly; SameSite=Strict$/,
    )
    assert.equal(setCookie.includes(TOKEN), false, 'the cookie never carries the token')
    assert.equal((await get(cookieOf(setCookie))).status, 200)
    const session = await call(f.dashboard, '/api/session', {
      base: '/ops',
      bearer: false,
      headers: { cookie: cookieOf(setCookie) },
    })
    assert.equal(session.json.authenticated, true)
    assert.equal(session.json.csrfToken, login.json.csrfToken)
  })

  void test('the cookie is Secure over https', async () => {
    const response = await f.dashboard.fetch(
      new Request('https://dash.test/ops/api/session', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token: TOKEN }),
      }),
    )
    assert.match(response.headers.get('set-cookie') ?? '', /; Secure$/)
  })

  void test('secureCookies overrides the URL: Secure behind a TLS proxy, or never', async () => {
    const login = (dashboard: Fixture['dashboard'], url: string) =>
      dashboard.fetch(
        new Request(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ token: TOKEN }),
        }),
      )
    const proxied = await fixture({ basePath: '/ops', secureCookies: true }, f.engine)
    const behindProxy = await login(proxied.dashboard, 'http://dash.test/ops/api/session')
    const cookie = behindProxy.headers.get('set-cookie') ?? ''
    assert.match(cookie, /; Secure$/)
    const { csrfToken } = (await behindProxy.json()) as { csrfToken: string }
    // Logging out clears it under the same rule.
    const logout = await proxied.dashboard.fetch(
      new Request('http://dash.test/ops/api/session', {
        method: 'DELETE',
        headers: {
          cookie: cookie.split(';')[0]!,
          origin: 'http://dash.test',
          'x-cairn-csrf': csrfToken,
        },
      }),
    )
    assert.equal(logout.status, 200)
    assert.match(logout.headers.get('set-cookie') ?? '', /Max-Age=0;.*; Secure$/)
    const plain = await fixture({ basePath: '/ops', secureCookies: false }, f.engine)
    const overHttps = await login(plain.dashboard, 'https://dash.test/ops/api/session')
    assert.equal(overHttps.status, 200)
    assert.doesNotMatch(overHttps.headers.get('set-cookie') ?? '', /Secure/)
    await assert.rejects(
      fixture({ secureCookies: 'yes' as unknown as boolean }, f.engine),
      /secureCookies must be true or false/,
    )
  })

  void test('sessionTtlMs: the cookie lasts 12 hours by default, or as long as configured', async () => {
    const login = async (dashboard: Fixture['dashboard']) =>
      call(dashboard, '/api/session', { base: '/ops', body: { token: TOKEN }, bearer: false })
    const byDefault = await login(f.dashboard)
    assert.match(byDefault.headers.get('set-cookie') ?? '', /; Max-Age=43200;/)
    const short = await fixture({ basePath: '/ops', sessionTtlMs: 60_000 }, f.engine)
    assert.match((await login(short.dashboard)).headers.get('set-cookie') ?? '', /; Max-Age=60;/)
    const brief = await fixture({ basePath: '/ops', sessionTtlMs: 250 }, f.engine)
    const set = (await login(brief.dashboard)).headers.get('set-cookie') ?? ''
    assert.match(set, /Max-Age=1(;|$)/, 'a lifetime under a second keeps the cookie a second')
    const cookie = cookieOf(set)
    const reuse = () =>
      call(brief.dashboard, '/api/runs', { base: '/ops', bearer: false, headers: { cookie } })
    assert.equal((await reuse()).status, 200)
    await new Promise((resolve) => setTimeout(resolve, 300))
    assert.equal((await reuse()).status, 401, 'the session ended with its lifetime')
    await Promise.all([short.close(), brief.close()])
    for (const sessionTtlMs of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])
      await assert.rejects(fixture({ sessionTtlMs }, f.engine), { code: 'E_INVALID_ARGUMENT' })
  })

  void test('a forged, altered, expired or anonymous session is 401', async () => {
    const valid = encodeSession(SECRET, newSession(SECRET, TOKEN, 60_000))
    assert.equal((await get(`cairn_session=${valid}`)).status, 200)
    const altered = valid.slice(0, -2) + (valid.endsWith('A') ? 'BB' : 'AA')
    const forged = encodeSession(
      'another-secret-0123456789abcdefghijkl',
      newSession('x', TOKEN, 60_000),
    )
    const expired = encodeSession(SECRET, {
      ...newSession(SECRET, TOKEN, 60_000),
      expiresAt: Date.now() - 1,
    })
    const anonymous = encodeSession(SECRET, newSession(SECRET, null, 60_000))
    for (const value of [altered, forged, expired, anonymous, 'garbage'])
      assert.equal((await get(`cairn_session=${value}`)).status, 401, value)
  })

  void test('removing a token from the configuration ends its sessions', async () => {
    const cookie = `cairn_session=${encodeSession(SECRET, newSession(SECRET, TOKEN, 60_000))}`
    const rotated = await fixture(
      { basePath: '/ops', auth: { tokens: ['a-brand-new-token-0123456789'] } },
      f.engine,
    )
    const { status } = await call(rotated.dashboard, '/api/runs', {
      base: '/ops',
      bearer: false,
      headers: { cookie },
    })
    assert.equal(status, 401)
  })

  void test('logging out clears the cookie', async () => {
    const { headers } = await call(f.dashboard, '/api/session', {
      base: '/ops',
      method: 'DELETE',
      bearer: false,
    })
    assert.match(headers.get('set-cookie') ?? '', /^cairn_session=; Path=\/ops; Max-Age=0;/)
  })
})

void describe('security: the app-provided authorize hook', () => {
  let f: Fixture
  const logger = capturingLogger()
  before(
    async () =>
      (f = await fixture({
        logger,
        auth: {
          authorize: (request) => {
            const user = request.headers.get('x-app-user')
            if (user === 'explode') throw new Error('authorize blew up for secret-user-data')
            return user === 'admin'
          },
        },
      })),
  )
  after(() => f.close())

  void test('authorize decides; a throw counts as no', async () => {
    const as = (user: string) =>
      call(f.dashboard, '/api/runs', { bearer: false, headers: { 'x-app-user': user } })
    assert.equal((await as('admin')).status, 200)
    assert.equal((await as('guest')).status, 401)
    assert.equal((await as('explode')).status, 401)
    assert.equal(logger.lines.join('\n').includes('secret-user-data'), false)
    assert.equal(
      (await call(f.dashboard, '/api/session', { bearer: false })).json.mode,
      'authorize',
    )
  })
})
