/**
 * Live streams cost the engine nothing per extra viewer: a caller holds at most 16 at once, the
 * dashboard 256 (429 E_TOO_MANY_STREAMS past either, and a closed stream frees its place), and
 * one engine event costs one store read of its run however many streams watch it.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Engine, MemoryStore, silentLogger } from '@cairn/core'
import { createDashboard } from '@cairn/dashboard'
import { MAX_STREAMS, MAX_STREAMS_PER_PRINCIPAL } from '../src/stream/stream_registry.ts'
import { ORIGIN, SECRET, registerWorkflows } from './helpers.ts'
import { SseReader } from './sse_reader.ts'

const TOKENS = Array.from(
  { length: 40 },
  (_, i) => `stream-limit-token-${String(i).padStart(4, '0')}`,
)

async function setUp() {
  const engine = new Engine({ store: new MemoryStore(), logger: silentLogger })
  registerWorkflows(engine)
  await engine.startDriving()
  const dashboard = createDashboard({
    engine,
    secret: SECRET,
    auth: { tokens: TOKENS },
    stream: { keepAliveMs: 60_000, runPollMs: 60_000, listPollMs: 60_000 },
  })
  const open = (path: string, token: string) =>
    dashboard.fetch(
      new Request(`${ORIGIN}${path}`, { headers: { authorization: `Bearer ${token}` } }),
    )
  const close = async () => {
    await dashboard.close()
    await engine.close(0)
  }
  return { engine, dashboard, open, close }
}

void test('a caller holds at most 16 streams, the dashboard 256; a closed stream frees its place', async () => {
  const { open, close } = await setUp()
  try {
    const mine: Response[] = []
    for (let i = 0; i < MAX_STREAMS_PER_PRINCIPAL; i++) {
      const response = await open('/api/stream/runs', TOKENS[0] as string)
      assert.equal(response.status, 200, `stream ${i}`)
      mine.push(response)
    }
    const refused = await open('/api/stream/runs?workflow=wait', TOKENS[0] as string)
    assert.equal(refused.status, 429)
    assert.equal(
      ((await refused.json()) as { error: { code: string } }).error.code,
      'E_TOO_MANY_STREAMS',
    )
    // Another caller is not held back by the first one's streams.
    const other = await open('/api/stream/runs', TOKENS[1] as string)
    assert.equal(other.status, 200)
    await other.body?.cancel()
    // Closing one of mine frees its place.
    await mine.pop()?.body?.cancel()
    await new Promise((resolve) => setTimeout(resolve, 20))
    const again = await open('/api/stream/runs', TOKENS[0] as string)
    assert.equal(again.status, 200)
    mine.push(again)
    // The dashboard's own cap, over many callers.
    const all: Response[] = [...mine]
    for (let t = 1; all.length < MAX_STREAMS; t++)
      for (let i = 0; i < MAX_STREAMS_PER_PRINCIPAL && all.length < MAX_STREAMS; i++)
        all.push(await open('/api/stream/runs', TOKENS[t] as string))
    assert.deepEqual(
      all.map((r, i) => [i, r.status]).filter(([, s]) => s !== 200),
      [],
    )
    assert.equal((await open('/api/stream/runs', TOKENS[39] as string)).status, 429)
    for (const response of all) await response.body?.cancel()
  } finally {
    await close()
  }
})

void test('one engine event costs one read of its run, however many list streams watch', async () => {
  const { engine, open, close } = await setUp()
  let reads = 0
  const getRun = engine.getRun.bind(engine)
  engine.getRun = ((runId: string) => {
    reads++
    return getRun(runId)
  }) as typeof engine.getRun
  try {
    const readers: SseReader[] = []
    for (let i = 0; i < 10; i++)
      for (let s = 0; s < 5; s++)
        readers.push(
          new SseReader(await open('/api/stream/runs?workflow=greet', TOKENS[i] as string)),
        )
    for (const reader of readers) await reader.until((e) => e.event === 'ready')
    reads = 0
    const { runId } = await engine.start('greet', 'ada')
    for (const reader of readers)
      await reader.until(
        (e) => e.event === 'run' && (e.data as { status: string }).status === 'completed',
      )
    await engine.waitForRun(runId, { timeoutMs: 5_000 })
    // The run's events (started, step started, completed, …): one read each, not fifty.
    assert.ok(reads > 0 && reads <= 10, `${reads} reads for ${readers.length} streams`)
  } finally {
    await close()
  }
})
