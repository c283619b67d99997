/**
 * Security: filter keys from an allowlist, clamped limits, capped bodies, tamper-proof
 * cursors.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createDashboard } from '@cairn/dashboard'
import { ORIGIN, TOKEN, call, fixture, type Fixture } from './helpers.ts'

void describe('security: filters and limits', () => {
  let f: Fixture
  before(async () => {
    f = await fixture()
    for (let i = 0; i < 205; i++) await f.engine.start('wait', {})
    await f.engine.whenQuiet()
  })
  after(() => f.close())

  void test('unknown filter keys and malformed values are 400, never ignored', async () => {
    for (const query of [
      'sort=id',
      'workflow=wait&workflw=x',
      'status=done',
      'createdFrom=yesterday',
      'claimableBefore=soon',
      'claimableBefore=-5',
      'claimableBefore=9999999999999999',
      'createdFrom=2024',
      'createdFrom=2024-02-30',
      'createdFrom=2023-02-29',
      'createdTo=2024-13-01',
      'createdTo=2024-04-31T10:00:00Z',
      'createdTo=2024-01-01T24:00:00Z',
      'claimableBefore=2024-01-01T10:60:00Z',
      'createdTo=12345678901',
      'stuckFor=-1',
      'stuckFor=525601',
      'stuckFor=1.5',
      'stuckFor=five',
      'stuckFor=5&stuckFor=6',
      'stuckFor=5&status=failed',
      'stuckFor=5&claimableBefore=2030-01-01',
      'limit=ten',
      'attr=amount:like:1',
      'workflow=a&workflow=b',
    ]) {
      const { status, json } = await call(f.dashboard, `/api/runs?${query}`)
      assert.equal(status, 400, query)
      assert.equal(json.error.code, 'E_INVALID_ARGUMENT', query)
    }
    assert.equal((await call(f.dashboard, '/api/facets?sort=x')).status, 400)
    assert.equal((await call(f.dashboard, '/api/facets?stuckFor=-1')).status, 400)
    assert.equal((await call(f.dashboard, '/api/stream/runs?createdFrom=2024')).status, 400)
    const bulk = await call(f.dashboard, '/api/bulk/cancel', {
      body: { filter: { stuckFor: '525601' }, dryRun: true },
    })
    assert.equal(bulk.json.error?.code, 'E_INVALID_ARGUMENT')
  })

  void test('epoch milliseconds of 12..15 digits and stuckFor 0..525600 are accepted', async () => {
    for (const query of [
      'createdFrom=100000000000',
      'createdFrom=2024-02-29',
      'createdTo=2024-12-31T23:59:59.999Z',
      'createdTo=999999999999999',
      'stuckFor=0',
      'stuckFor=525600&status=pending&status=waiting',
    ]) {
      const { status, json } = await call(f.dashboard, `/api/runs?${query}`)
      assert.equal(status, 200, `${query}: ${JSON.stringify(json)}`)
    }
    assert.equal((await call(f.dashboard, '/api/stream/runs?sort=x')).status, 400)
  })

  void test('limits are clamped into their range', async () => {
    const huge = await call(f.dashboard, '/api/runs?limit=100000')
    assert.equal(huge.json.runs.length, 200)
    const zero = await call(f.dashboard, '/api/runs?limit=0')
    assert.equal(zero.json.runs.length, 1)
    const negative = await call(f.dashboard, '/api/runs?limit=-5')
    assert.equal(negative.json.runs.length, 1)
  })
})

void describe('security: request bodies are capped', () => {
  let f: Fixture
  before(async () => (f = await fixture()))
  after(() => f.close())

  void test('a body over 1 MiB is 413, declared or streamed', async () => {
    const { runId } = await f.engine.start('wait', {})
    await f.engine.whenQuiet()
    const big = JSON.stringify({ name: 'go', payload: 'x'.repeat(1024 * 1024) })
    const declared = await call(f.dashboard, `/api/runs/${runId}/signal`, { body: big })
    assert.equal(declared.status, 413)
    assert.equal(declared.json.error.code, 'E_PAYLOAD_TOO_LARGE')
    const chunks = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 20; i++) controller.enqueue(new Uint8Array(64 * 1024).fill(32))
        controller.close()
      },
    })
    const streamed = await f.dashboard.fetch(
      new Request(`${ORIGIN}/api/runs/${runId}/signal`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: chunks,
        duplex: 'half',
      } as RequestInit),
    )
    assert.equal(streamed.status, 413)
    assert.equal((await f.engine.getRun(runId))?.status, 'waiting')
  })

  void test('a body that is not a JSON object is 400; one that is not JSON is 415', async () => {
    for (const body of ['[1]', '"x"', '{bad json', '', '  ']) {
      const { status } = await call(f.dashboard, '/api/runs/x/signal', {
        body,
        headers: { 'content-type': 'application/json' },
      })
      assert.equal(status, 400, JSON.stringify(body))
    }
    for (const type of ['application/x-www-form-urlencoded', 'text/plain', 'multipart/form-data']) {
      const { status, json } = await call(f.dashboard, '/api/runs/x/signal', {
        body: '{"name":"go"}',
        headers: { 'content-type': type },
      })
      assert.equal(status, 415, type)
      assert.equal(json.error.code, 'E_UNSUPPORTED_MEDIA_TYPE')
    }
    // No body and no content type: refused, never read as {}.
    const bare = await call(f.dashboard, '/api/runs/x/retry', { method: 'POST' })
    assert.equal(bare.status, 415)
  })
})

void describe('security: tamper-proof cursors', () => {
  let f: Fixture
  let cursor: string
  before(async () => {
    f = await fixture()
    for (let i = 0; i < 5; i++) await f.engine.start('wait', {})
    await f.engine.whenQuiet()
    cursor = (await call(f.dashboard, '/api/runs?workflow=wait&limit=2')).json.nextCursor
  })
  after(() => f.close())

  const page = (query: string) => call(f.dashboard, `/api/runs?${query}`)

  void test('a cursor pages on with its own filter', async () => {
    const next = await page(`workflow=wait&limit=2&cursor=${encodeURIComponent(cursor)}`)
    assert.equal(next.status, 200)
    assert.equal(next.json.runs.length, 2)
  })

  void test('replayed with another filter, altered or made up: 400 E_INVALID_CURSOR', async () => {
    const flipped = cursor.slice(0, 5) + (cursor[5] === 'A' ? 'B' : 'A') + cursor.slice(6)
    const storeCursor = (await f.engine.listRuns({ workflow: 'wait', limit: 2 }))
      .nextCursor as string
    const foreign = await call(
      createDashboard({
        engine: f.engine,
        secret: 'some-other-secret-0123456789abcdefghij',
        auth: { tokens: [TOKEN] },
      }),
      '/api/runs?workflow=wait&limit=2',
    )
    for (const query of [
      `workflow=greet&limit=2&cursor=${encodeURIComponent(cursor)}`,
      `limit=2&cursor=${encodeURIComponent(cursor)}`,
      `workflow=wait&status=waiting&cursor=${encodeURIComponent(cursor)}`,
      `workflow=wait&cursor=${encodeURIComponent(flipped)}`,
      `workflow=wait&cursor=${encodeURIComponent(storeCursor)}`,
      `workflow=wait&cursor=${encodeURIComponent(foreign.json.nextCursor)}`,
      'workflow=wait&cursor=garbage',
    ]) {
      const { status, json } = await page(query)
      assert.equal(status, 400, query)
      assert.equal(json.error.code, 'E_INVALID_CURSOR', query)
    }
  })
})
