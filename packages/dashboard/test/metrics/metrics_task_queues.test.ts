/**
 * Task queue gauges read at scrape time from engine.taskDepth(): per transport and step, tasks
 * ready, delayed and held, and the oldest ready task's age; a transport that cannot be read
 * keeps the last values and counts an error.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Engine, MemoryStore, silentLogger } from '@cairn/core'
import type { EngineTransport } from '@cairn/core/contracts'
import { createMemoryTransport } from '@cairn/core/testing'
import { taskIdOf, type TaskMessage } from '@cairn/core/wire'
import { createMetrics } from '../../src/metrics/index.ts'
import { parseExposition, samplesOf, valueOf } from './exposition.ts'

function task(step: string, runId: string): TaskMessage {
  return {
    v: 1,
    type: 'task',
    taskId: taskIdOf({ runId, seq: 0, attempt: 1 }),
    runId,
    seq: 0,
    attempt: 1,
    step,
    input: 'null',
    requires: [],
    timeoutMs: null,
    heartbeatIntervalMs: 5_000,
    dispatchedAt: Date.now(),
  }
}

void test('task queue gauges: ready, delayed and held per transport and step, the oldest ready age; a failed read is counted', async (t) => {
  const memory = createMemoryTransport()
  const half = memory.engine()
  let failing = false
  const flaky: EngineTransport = {
    name: half.name,
    open: () => half.open(),
    close: () => half.close(),
    publish: (tasks) => half.publish(tasks),
    consume: (handler) => half.consume(handler),
    workers: (since) => half.workers(since),
    withdraw: (task) => half.withdraw(task),
    depth: (now, steps) =>
      failing ? Promise.reject(new Error('broker down')) : half.depth(now, steps),
  }
  const engine = new Engine({
    store: new MemoryStore(),
    logger: silentLogger,
    transports: { q: flaky },
  })
  await engine.open()
  t.after(() => engine.close(0))
  await half.open()
  await half.publish([
    { message: task('charge', 'r1'), delayMs: 0 },
    { message: task('charge', 'r2'), delayMs: 0 },
    { message: task('charge', 'r3'), delayMs: 60_000 },
    { message: task('ship', 'r4'), delayMs: 0 },
  ])
  const worker = memory.worker()
  const [held] = await worker.receive({
    steps: ['charge'],
    capabilities: [],
    max: 1,
    holdMs: 60_000,
    signal: AbortSignal.timeout(1_000),
  })
  assert.ok(held)
  await new Promise((resolve) => setTimeout(resolve, 1_100))
  const metrics = createMetrics(engine, { backlogCacheMs: 0 })
  t.after(() => metrics.close())
  const read = async () => {
    const parsed = parseExposition(await metrics.render())
    const queued = samplesOf(parsed, 'cairn_tasks_queued')
      .map((s) => `${Object.values(s.labels).join('/')}=${s.value}`)
      .sort()
    const ages = samplesOf(parsed, 'cairn_tasks_oldest_ready_age_seconds')
    return { queued, ages, errors: valueOf(parsed, 'cairn_task_depth_read_errors_total') }
  }
  const first = await read()
  assert.deepEqual(first.queued, [
    'q/charge/delayed=1',
    'q/charge/held=1',
    'q/charge/ready=1',
    'q/ship/delayed=0',
    'q/ship/held=0',
    'q/ship/ready=1',
  ])
  for (const age of first.ages) assert.ok(age.value >= 1, `${JSON.stringify(age)}: waited over 1 s`)
  assert.equal(first.errors, 0)
  failing = true
  const second = await read()
  assert.deepEqual(second.queued, first.queued, 'a failed read keeps the last values')
  assert.equal(second.errors, 1)
  await worker.close()
})
