/**
 * Security: the CSP and security headers on every response, JSON that no browser renders as
 * HTML, and error bodies that never carry stack traces or secrets.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { CONTENT_SECURITY_POLICY } from '../src/http/security_headers.ts'
import { ORIGIN, TOKEN, call, capturingLogger, fixture, type Fixture } from './helpers.ts'

const EXPECTED_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
  "connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

void describe('security: response headers', () => {
  let f: Fixture
  let runId: string
  before(async () => {
    f = await fixture({ basePath: '/ops' })
    runId = (await f.engine.start('greet', 'x')).runId
  })
  after(() => f.close())

  const assertSecure = (headers: Headers, what: string) => {
    assert.equal(headers.get('content-security-policy'), EXPECTED_CSP, what)
    assert.equal(headers.get('x-content-type-options'), 'nosniff', what)
    assert.equal(headers.get('referrer-policy'), 'no-referrer', what)
    assert.equal(headers.get('x-frame-options'), 'DENY', what)
    assert.equal(headers.get('cross-origin-opener-policy'), 'same-origin', what)
    assert.equal(headers.get('cross-origin-resource-policy'), 'same-origin', what)
  }

  void test('the policy is the documented one', () => {
    assert.equal(CONTENT_SECURITY_POLICY, EXPECTED_CSP)
  })

  void test('every kind of response carries them', async () => {
    const cases: Array<[string, Parameters<typeof call>[2]]> = [
      ['/api/runs', {}],
      [`/api/runs/${runId}`, {}],
      ['/api/runs/missing', {}],
      ['/api/runs', { bearer: false }],
      ['/api/runs?bogus=1', {}],
      ['/', {}],
      ['/assets/index.html', {}],
      ['/assets/nope.js', {}],
      ['', {}],
      ['/api/session', { method: 'DELETE', bearer: false }],
      [`/api/runs/${runId}/cancel`, { body: 'x'.repeat(1024 * 1024 + 1) }],
    ]
    for (const [path, options] of cases) {
      const { headers, status } = await call(f.dashboard, path, { base: '/ops', ...options })
      assertSecure(headers, `${status} ${path}`)
    }
    const outside = await f.dashboard.fetch(new Request(`${ORIGIN}/elsewhere`))
    assertSecure(outside.headers, 'outside the base path')
    const stream = await f.dashboard.fetch(
      new Request(`${ORIGIN}/ops/api/stream/runs`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      }),
    )
    assertSecure(stream.headers, 'event stream')
    assert.equal(stream.headers.get('content-type')?.startsWith('text/event-stream'), true)
    await stream.body?.cancel()
    const runStream = await f.dashboard.fetch(
      new Request(`${ORIGIN}/ops/api/stream/runs/${runId}`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      }),
    )
    assertSecure(runStream.headers, "one run's event stream")
    await runStream.body?.cancel()
  })

  void test('API responses are JSON and never cached', async () => {
    for (const path of ['/api/runs', '/api/runs/missing', '/api/session']) {
      const { headers } = await call(f.dashboard, path, { base: '/ops' })
      assert.equal(headers.get('content-type'), 'application/json; charset=utf-8', path)
      assert.equal(headers.get('cache-control'), 'no-store', path)
    }
  })
})

void describe('security: XSS-safe JSON', () => {
  let f: Fixture
  before(async () => (f = await fixture()))
  after(() => f.close())

  void test('markup in run data is served as JSON with no raw < > &', async () => {
    const evil = '</script><img src=x onerror=alert(1)>&amp;'
    const { runId } = await f.engine.start('greet', evil, { runId: 'run-<b>x</b>' })
    await f.engine.waitForRun(runId, { timeoutMs: 5000 })
    for (const path of ['/api/runs', `/api/runs/${encodeURIComponent(runId)}`]) {
      const { text, json, headers } = await call(f.dashboard, path)
      assert.equal(headers.get('content-type'), 'application/json; charset=utf-8')
      assert.doesNotMatch(text, /[<>&]/, path)
      assert.ok(JSON.stringify(json).includes('run-<b>x</b>'), 'the value itself is intact')
    }
    const detail = await call(f.dashboard, `/api/runs/${encodeURIComponent(runId)}`)
    assert.equal(detail.json.run.input, evil)
  })

  void test('input echoed in an error message is escaped too', async () => {
    const { text, status } = await call(f.dashboard, '/api/runs?%3Cscript%3E=1')
    assert.equal(status, 400)
    assert.doesNotMatch(text, /[<>]/)
  })
})

void describe('security: error bodies', () => {
  let f: Fixture
  const logger = capturingLogger()
  before(async () => (f = await fixture({ logger })))
  after(() => f.close())

  void test('an unexpected error is a generic 500: no message, stack or secret', async () => {
    const { runId } = await f.engine.start('wait', {})
    const secret = `postgres://admin:hunter2@db/${TOKEN}`
    f.engine.signal = async () => {
      throw new Error(`connection failed: ${secret}`)
    }
    const { status, json, text } = await call(f.dashboard, `/api/runs/${runId}/signal`, {
      body: { name: 'go' },
    })
    assert.equal(status, 500)
    assert.deepEqual(json, { error: { code: 'E_INTERNAL', message: 'internal error' } })
    assert.doesNotMatch(text, /hunter2|\bat\b|\.ts/)
    assert.ok(
      logger.lines.some((line) => line.includes('frames')),
      'the logger has the frames',
    )
  })

  void test('known errors say what went wrong without internals', async () => {
    const { json, text } = await call(f.dashboard, '/api/runs/nope/steps')
    assert.equal(json.error.code, 'E_RUN_NOT_FOUND')
    assert.doesNotMatch(text, /stack|\.ts:\d/)
    const unauthorized = await call(f.dashboard, '/api/runs', {
      bearer: false,
      headers: { authorization: 'Bearer wrong-token-value-here' },
    })
    assert.doesNotMatch(unauthorized.text, /wrong-token-value-here|test-token/)
  })
})
