/**
 * `GET api/runs/:id/events/:key`: a run's published state (ctx.setEvent) through the API,
 * behind the dashboard's auth, decoded by the engine's codec — an encrypting transform's
 * ciphertext never reaches the caller.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createCodec, Engine, MemoryStore, silentLogger } from '@cairn/core'
import { call, fixture, type Fixture } from './helpers.ts'

/** A stand-in for encryption at rest: the store sees reversed base64, never the JSON. */
const sealed = {
  encode: (text: string) => [...Buffer.from(text).toString('base64')].reverse().join(''),
  decode: (text: string) => Buffer.from([...text].reverse().join(''), 'base64').toString(),
}

void describe('dashboard published-state API', () => {
  let f: Fixture
  let store: MemoryStore
  let runId: string
  before(async () => {
    store = new MemoryStore()
    const engine = new Engine({
      store,
      logger: silentLogger,
      codec: createCodec({ transform: sealed }),
    })
    engine.register('publisher', 1, async (ctx, _input: unknown) => {
      await ctx.setEvent('stage', 'packing')
      await ctx.setEvent('stage', 'shipped')
      await ctx.setEvent('parcel', { at: new Date(0), weights: new Map([['a', 2n]]) })
      await ctx.setEvent('odd/key?#%', 1)
      return ctx.waitForSignal('never')
    })
    after(() => engine.close(50))
    await engine.startDriving()
    f = await fixture({}, engine)
    runId = (await engine.start('publisher', null)).runId
    assert.equal(await engine.getEvent(runId, 'odd/key?#%', { timeoutMs: 5000 }), 1)
  })
  after(() => f?.close())

  const path = (key: string, id = runId) =>
    `/api/runs/${encodeURIComponent(id)}/events/${encodeURIComponent(key)}`

  void test('the latest value of a key, as JSON', async () => {
    const { status, json, headers } = await call(f.dashboard, path('stage'))
    assert.equal(status, 200)
    assert.equal(headers.get('cache-control'), 'no-store')
    assert.deepEqual(json, { runId, key: 'stage', value: 'shipped' })
    const parcel = await call(f.dashboard, path('parcel'))
    assert.deepEqual(parcel.json.value, { at: '1970-01-01T00:00:00.000Z', weights: [['a', '2']] })
    assert.equal((await call(f.dashboard, path('odd/key?#%'))).json.value, 1)
  })

  void test('the store holds the transformed text; the API returns the value', async () => {
    const records = await store.loadCheckpoints(runId)
    const stage = records.filter((r) => r.kind === 'set_event').map((r) => r.output ?? '')
    assert.equal(stage.length, 4)
    for (const text of stage) assert.doesNotMatch(text, /shipped|packing|parcel/)
  })

  void test('behind the auth: no token is 401, a wrong one too', async () => {
    assert.equal((await call(f.dashboard, path('stage'), { bearer: false })).status, 401)
    const wrong = { bearer: false, headers: { authorization: 'Bearer not-the-token-0123456' } }
    assert.equal((await call(f.dashboard, path('stage'), wrong)).status, 401)
  })

  void test('a key never set, and an unknown run, are 404; a key no run can set is 400', async () => {
    const unset = await call(f.dashboard, path('nope'))
    assert.equal(unset.status, 404)
    assert.equal(unset.json.error.code, 'E_NOT_FOUND')
    const unknown = await call(f.dashboard, path('stage', 'no-such-run'))
    assert.equal(unknown.status, 404)
    assert.equal(unknown.json.error.code, 'E_RUN_NOT_FOUND')
    const reserved = await call(f.dashboard, path('cairn:stage'))
    assert.equal(reserved.status, 400)
  })

  void test('GET only: a POST is not a route', async () => {
    const posted = await call(f.dashboard, path('stage'), { body: {} })
    assert.equal(posted.status, 404)
  })
})
