/**
 * `GET api/workers`: the remote-step fleet on the engine's transports, as engine.listWorkers()
 * reports it; empty for an engine without transports; behind the dashboard's auth like every
 * API route.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Engine, MemoryStore, silentLogger } from '@cairn/core'
import { createMemoryTransport } from '@cairn/core/testing'
import { createWorker } from '@cairn/worker'
import { call, fixture } from './helpers.ts'

void test('GET api/workers lists the live workers; an engine without transports has none', async (t) => {
  const transport = createMemoryTransport()
  const engine = new Engine({
    store: new MemoryStore(),
    logger: silentLogger,
    transports: { queue: transport.engine() },
  })
  await engine.open()
  t.after(() => engine.close(0))
  const worker = createWorker({
    transport: transport.worker(),
    workerId: 'render-1',
    capabilities: ['gpu'],
    steps: { render: () => 1 },
  })
  await worker.start()
  t.after(() => worker.close(100))
  const f = await fixture({}, engine)
  t.after(() => f.close())
  const { status, json } = await call(f.dashboard, '/api/workers')
  assert.equal(status, 200)
  assert.deepEqual(
    json.workers.map(
      (w: { workerId: string; transport: string; capabilities: string[]; protocol: number }) => [
        w.workerId,
        w.transport,
        w.capabilities,
        w.protocol,
      ],
    ),
    [['render-1', 'queue', ['gpu'], 1]],
  )
  assert.equal((await call(f.dashboard, '/api/workers', { bearer: false })).status, 401)

  const bare = await fixture()
  t.after(() => bare.close())
  assert.deepEqual((await call(bare.dashboard, '/api/workers')).json, { workers: [] })
})
