/**
 * Worker gauges read at scrape time from engine.listWorkers(): live workers per transport, per
 * capability, and their tasks in flight; a worker that leaves drops out of the next read.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Engine, MemoryStore, silentLogger } from '@cairn/core'
import { createMemoryTransport } from '@cairn/core/testing'
import { createWorker } from '@cairn/worker'
import { createMetrics } from '../../src/metrics/index.ts'
import { parseExposition, samplesOf } from './exposition.ts'

void test('worker gauges: per transport, per capability, in flight; a worker that left is gone', async (t) => {
  const fast = createMemoryTransport()
  const slow = createMemoryTransport()
  const engine = new Engine({
    store: new MemoryStore(),
    logger: silentLogger,
    transports: { fast: fast.engine(), slow: slow.engine() },
  })
  await engine.open()
  t.after(() => engine.close(0))
  const workers = [
    createWorker({ transport: fast.worker(), capabilities: ['gpu', 'pdf'], steps: { a: () => 1 } }),
    createWorker({ transport: fast.worker(), capabilities: ['gpu'], steps: { a: () => 1 } }),
    createWorker({ transport: slow.worker(), steps: { b: () => 1 } }),
  ]
  for (const worker of workers) await worker.start()
  const metrics = createMetrics(engine, { backlogCacheMs: 0 })
  t.after(() => metrics.close())
  const read = async () => {
    const parsed = parseExposition(await metrics.render())
    const series = (name: string) =>
      samplesOf(parsed, name)
        .map((s) => `${Object.values(s.labels).join('/')}=${s.value}`)
        .sort()
    return {
      workers: series('cairn_workers'),
      capabilities: series('cairn_workers_by_capability'),
      inFlight: series('cairn_worker_tasks_in_flight'),
    }
  }
  assert.deepEqual(await read(), {
    workers: ['fast=2', 'slow=1'],
    capabilities: ['fast/gpu=2', 'fast/pdf=1'],
    inFlight: ['fast=0', 'slow=0'],
  })
  await workers[0]?.close(100)
  await workers[2]?.close(100)
  assert.deepEqual(await read(), {
    workers: ['fast=1'],
    capabilities: ['fast/gpu=1'],
    inFlight: ['fast=0'],
  })
  await workers[1]?.close(100)
})
