/**
 * Security: prototype pollution. `__proto__`, `constructor` and `prototype` go through every
 * parser that turns request data into objects — filter keys, search attribute conditions in
 * lists, facets, streams and bulk filters, JSON action bodies, signal payloads and run inputs,
 * cookie and header names — and must come out refused (400, where they would name something)
 * or kept as plain data (payloads), never as a write into `Object.prototype` or a silently
 * dropped condition.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { call, fixture, type Fixture } from './helpers.ts'

const RESERVED = ['__proto__', 'constructor', 'prototype']

/** Object.prototype as it was: its own keys, and a fresh object's view of the usual suspects. */
function prototypeSnapshot(): string {
  const probe = {} as Record<string, unknown>
  const suspects = ['gt', 'eq', 'x', 'polluted', 'status', 'workflow']
  return JSON.stringify([
    Object.getOwnPropertyNames(Object.prototype).sort(),
    suspects.map((k) => probe[k]),
  ])
}

void describe('security: prototype keys through every parser', () => {
  let f: Fixture
  let before_: string
  before(async () => {
    f = await fixture()
    before_ = prototypeSnapshot()
  })
  after(() => f.close())

  void test('as a search attribute name: 400 on lists, facets, streams and bulk filters', async () => {
    for (const name of RESERVED) {
      for (const path of ['/api/runs', '/api/facets', '/api/stream/runs']) {
        const { status, json } = await call(f.dashboard, `${path}?attr=${name}:gt:5`)
        assert.equal(status, 400, `${path} ${name}`)
        assert.equal(json.error.code, 'E_INVALID_ARGUMENT')
        assert.match(json.error.message, /reserved/)
      }
      const bulk = await call(f.dashboard, '/api/bulk/cancel', {
        body: { filter: { attr: `${name}:gt:5` }, dryRun: true },
      })
      assert.equal(bulk.status, 400, `bulk ${name}`)
    }
    assert.equal(prototypeSnapshot(), before_, 'Object.prototype untouched')
  })

  void test('as a filter key, in a query or a bulk filter: 400, never ignored', async () => {
    for (const name of RESERVED) {
      const { status } = await call(f.dashboard, `/api/runs?${name}=x`)
      assert.equal(status, 400, `query key ${name}`)
      // Raw JSON: an object literal would set the prototype instead of a key.
      const body = `{"filter":{"${name}":{"workflow":"nope"}},"dryRun":true}`
      const bulk = await call(f.dashboard, '/api/bulk/cancel', { body })
      assert.equal(bulk.status, 400, `bulk filter key ${name}`)
    }
    assert.equal(prototypeSnapshot(), before_, 'Object.prototype untouched')
  })

  void test('in a signal payload: plain data, received and shown exactly', async () => {
    const { runId } = await f.engine.start('wait', {})
    await f.engine.whenQuiet()
    const payload = '{"__proto__":{"polluted":true},"constructor":1,"prototype":[2]}'
    const body = `{"name":"go","payload":${payload},"signalId":"p-1"}`
    const sent = await call(f.dashboard, `/api/runs/${runId}/signal`, { body })
    assert.equal(sent.status, 200, JSON.stringify(sent.json))
    const outcome = await f.engine.waitForRun(runId, { timeoutMs: 5_000 })
    assert.equal(outcome.status, 'completed')
    const output = (outcome as { output: Record<string, unknown> }).output
    assert.deepEqual(Object.keys(output).sort(), ['__proto__', 'constructor', 'prototype'])
    assert.equal(Object.getPrototypeOf(output), Object.prototype, 'a key, not a prototype')
    assert.deepEqual(Object.getOwnPropertyDescriptor(output, '__proto__')?.value, {
      polluted: true,
    })
    const detail = await call(f.dashboard, `/api/runs/${runId}`)
    assert.match(detail.text, /"__proto__":\{"polluted":true\}/, 'shown as data')
    assert.equal(prototypeSnapshot(), before_, 'Object.prototype untouched')
  })

  void test('as cookie and header names: ignored as the noise they are, never a 500', async () => {
    const cookie = '__proto__=1; constructor=2; prototype=3; cairn_session=__proto__'
    const headers: Array<[string, string]> = RESERVED.map((name) => [name, 'x'])
    const request = (bearer: boolean) =>
      call(f.dashboard, '/api/runs', {
        bearer,
        headers: Object.fromEntries([...headers, ['cookie', cookie]]),
      })
    assert.equal((await request(true)).status, 200)
    assert.equal((await request(false)).status, 401)
    assert.equal(prototypeSnapshot(), before_, 'Object.prototype untouched')
  })

  void test('in an action body: a refused field, or input kept as plain data', async () => {
    for (const name of RESERVED) {
      const login = await call(f.dashboard, '/api/session', {
        body: `{"${name}":{"token":"x"}}`,
        bearer: false,
      })
      assert.equal(login.status, 400, `login with only ${name}`)
      const cancel = await call(f.dashboard, '/api/runs/nope/cancel', {
        body: `{"${name}":{"compensate":true}}`,
      })
      assert.equal(cancel.status, 400, `cancel body key ${name}`)
      assert.match(cancel.json.error.message, /unknown field/)
    }
    const failed = (await f.engine.start('fail', null)).runId
    await f.engine.waitForRun(failed, { timeoutMs: 5_000 })
    const input = '{"__proto__":{"polluted":true},"constructor":1}'
    const retried = await call(f.dashboard, `/api/runs/${failed}/retry-with-input`, {
      body: `{"input":${input}}`,
    })
    assert.equal(retried.status, 200, JSON.stringify(retried.json))
    const run = await f.engine.getRun(retried.json.runId)
    const kept = run?.input as Record<string, unknown>
    assert.deepEqual(Object.keys(kept).sort(), ['__proto__', 'constructor'])
    assert.equal(Object.getPrototypeOf(kept), Object.prototype, 'a key, not a prototype')
    assert.equal(prototypeSnapshot(), before_, 'Object.prototype untouched')
  })
})
