/**
 * Live streams: the one-run stream follows a run to its end, the list stream announces
 * created and changed runs of its filter, keep-alives flow, and close() ends every stream.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Engine, MemoryStore, silentLogger } from '@cairn/core'
import { FakeClock } from '@cairn/core/testing'
import { ORIGIN, TOKEN, fixture, registerWorkflows, type Fixture } from './helpers.ts'
import { SseReader, type SseEvent } from './sse_reader.ts'

const open = async (f: Fixture, path: string) => {
  const response = await f.dashboard.fetch(
    new Request(`${ORIGIN}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } }),
  )
  assert.equal(response.status, 200)
  assert.equal(response.headers.get('content-type'), 'text/event-stream')
  assert.equal(response.headers.get('cache-control'), 'no-store')
  return new SseReader(response)
}
const data = (event: SseEvent) => event.data as { id: string; status: string; name: string }
/** Waits for a list stream's `ready`: its baseline is read, every later change is announced. */
const ready = (reader: SseReader) => reader.until((e) => e.event === 'ready')

void describe('dashboard live streams', () => {
  let f: Fixture
  before(
    async () => (f = await fixture({ stream: { keepAliveMs: 20, runPollMs: 50, listPollMs: 50 } })),
  )
  after(() => f.close())

  void test('a run stream sends the run and its steps until it ends', async () => {
    const { runId } = await f.engine.start('wait', {})
    await f.engine.whenQuiet()
    const reader = await open(f, `/api/stream/runs/${runId}`)
    const first = await reader.until((e) => e.event === 'run')
    assert.equal(data(first[first.length - 1] as SseEvent).status, 'waiting')
    assert.ok(reader.fields.includes('retry: 2000'))
    await f.engine.signal({ runId, name: 'go' }, 'now')
    const rest = await reader.until((e) => e.event === 'end')
    assert.ok(rest.some((e) => e.event === 'run' && data(e).status === 'completed'))
    assert.ok(rest.some((e) => e.event === 'step' && data(e).name === 'go'))
    assert.equal(await reader.next(), null, 'the stream closes after end')
  })

  void test('a run stream of an unknown run is 404 before streaming', async () => {
    const response = await f.dashboard.fetch(
      new Request(`${ORIGIN}/api/stream/runs/nope`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      }),
    )
    assert.equal(response.status, 404)
  })

  void test('a list stream announces created runs of its filter only', async () => {
    const reader = await open(f, '/api/stream/runs?workflow=greet')
    await ready(reader) // subscribed, baseline read
    await f.engine.start('wait', {})
    const { runId } = await f.engine.start('greet', 'Bo')
    const events = await reader.until((e) => data(e).id === runId && data(e).status === 'completed')
    assert.ok(events.every((e) => e.event === 'run'))
    assert.ok(events.every((e) => (e.data as { workflow: string }).workflow === 'greet'))
    await reader.cancel()
  })

  void test('a claimableBefore stream announces a run while open, never once it finished', async () => {
    const all = await open(f, '/api/stream/runs?workflow=greet')
    const whileOpen = await open(f, '/api/stream/runs?workflow=greet&claimableBefore=2999-01-01')
    await ready(all)
    await ready(whileOpen)
    const first = (await f.engine.start('greet', 'Al')).runId
    await all.until((e) => data(e).id === first && data(e).status === 'completed')
    // A later run's first event: the stream has handled every event of the first run by then.
    const second = (await f.engine.start('greet', 'Bo')).runId
    const events = await whileOpen.until((e) => data(e).id === second)
    const ofFirst = events.filter((e) => data(e).id === first)
    assert.ok(ofFirst.length > 0, 'announced while open')
    assert.ok(
      ofFirst.every((e) => data(e).status !== 'completed'),
      JSON.stringify(ofFirst),
    )
    await all.cancel()
    await whileOpen.cancel()
  })

  void test('idle streams get keep-alive comments', async () => {
    const reader = await open(f, '/api/stream/runs?workflow=nothing-runs-this')
    assert.equal(await reader.comment(), ': keep-alive')
    await reader.cancel()
  })

  void test(
    'a stream the client leaves stops listening to the engine',
    { timeout: 20_000 },
    async () => {
      let listening = 0
      const on = f.engine.on.bind(f.engine)
      f.engine.on = ((name, listener) => {
        const off = on(name, listener)
        listening++
        return () => (listening--, off())
      }) as typeof f.engine.on
      try {
        const reader = await open(f, '/api/stream/runs')
        await reader.comment()
        assert.ok(listening > 0)
        await reader.cancel()
        while (listening > 0) await new Promise((resolve) => setTimeout(resolve, 5))
      } finally {
        f.engine.on = on
      }
    },
  )

  // A timeout, not a timing assertion: without it a regression would hang the suite.
  void test('close() ends every open stream', { timeout: 20_000 }, async () => {
    const { runId } = await f.engine.start('wait', {})
    const one = await open(f, `/api/stream/runs/${runId}`)
    const list = await open(f, '/api/stream/runs')
    await one.until((e) => e.event === 'run')
    await list.comment()
    await f.dashboard.close()
    const drain = async (reader: SseReader) => {
      while ((await reader.next()) !== null);
    }
    await Promise.all([drain(one), drain(list)])
  })
})

void describe('a stuckFor list stream', () => {
  // A run nobody drives stays pending; the engine's clock decides when it counts as stuck.
  const clock = new FakeClock()
  let f: Fixture
  before(async () => {
    const engine = new Engine({ store: new MemoryStore(), logger: silentLogger, clock })
    registerWorkflows(engine)
    f = await fixture({ stream: { keepAliveMs: 20, runPollMs: 50, listPollMs: 50 } }, engine)
  })
  after(async () => {
    await f.close()
    await f.engine.close(50)
  })

  void test(
    'announces a run once it has been claimable for N minutes of engine time',
    { timeout: 10_000 },
    async () => {
      const reader = await open(f, '/api/stream/runs?stuckFor=5')
      await ready(reader)
      const { runId } = await f.engine.start('wait', {})
      await clock.advance(360_000)
      // Only a cutoff resolved again at this poll, from the engine's clock, lets the run in.
      const events = await reader.until((e) => data(e).id === runId)
      assert.equal(data(events[events.length - 1] as SseEvent).status, 'pending')
      await reader.cancel()
    },
  )
})
