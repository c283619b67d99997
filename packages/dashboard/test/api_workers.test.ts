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

void test('GET api/runs/:id/steps shows the worker that ran a remote step and how long it was queued', async (t) => {
  const transport = createMemoryTransport()
  const engine = new Engine({
    store: new MemoryStore(),
    logger: silentLogger,
    transports: { queue: transport.engine() },
  })
  engine.registerStep('render', () => 'never here', { transport: 'queue' })
  engine.register('draw', 1, async (ctx) => ctx.step('render', null))
  await engine.startDriving()
  t.after(() => engine.close(0))
  const worker = createWorker({
    transport: transport.worker(),
    workerId: 'render-1',
    steps: { render: () => 'drawn' },
  })
  await worker.start()
  t.after(() => worker.close(100))
  const { runId } = await engine.start('draw', null)
  await engine.waitForRun(runId, { timeoutMs: 10_000 })
  const f = await fixture({}, engine)
  t.after(() => f.close())
  const { status, json } = await call(f.dashboard, `/api/runs/${runId}/steps`)
  assert.equal(status, 200)
  const [step] = json.steps as { worker: { id: string; queuedMs: number; startedAt: string } }[]
  assert.equal(step?.worker.id, 'render-1')
  assert.ok(step.worker.queuedMs >= 0)
  assert.ok(!Number.isNaN(Date.parse(step.worker.startedAt)))
})

void test('GET api/queues lists the registered queues as the store sees them', async (t) => {
  const engine = new Engine({
    store: new MemoryStore(),
    logger: silentLogger,
    queues: { carrier: { concurrency: 2 } },
  })
  await engine.open()
  t.after(() => engine.close(0))
  const f = await fixture({}, engine)
  t.after(() => f.close())
  const { status, json } = await call(f.dashboard, '/api/queues')
  assert.equal(status, 200)
  assert.deepEqual(json.queues, [
    {
      queue: 'carrier',
      concurrency: 2,
      granted: 0,
      leased: 0,
      waiting: 0,
      oldestWaitingSince: null,
      rateLimit: null,
      recentGrants: 0,
      throttled: 0,
    },
  ])
  assert.equal(typeof json.now, 'number')
  assert.equal((await call(f.dashboard, '/api/queues', { bearer: false })).status, 401)
})
