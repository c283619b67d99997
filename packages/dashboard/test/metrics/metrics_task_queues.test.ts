/**
 * Task queue gauges read at scrape time from engine.taskDepth(): per transport and step, tasks
 * ready, delayed and held, and the oldest ready task's age, and the transport's count of
 * redeliveries; a transport that cannot be read keeps the last values and counts an error.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Engine, MemoryStore, silentLogger } from '@cairn/core'
import type { EngineTransport } from '@cairn/core/contracts'
import { createMemoryTransport, firstAttemptTask } from '@cairn/core/testing'
import type { TaskMessage } from '@cairn/core/wire'
import { createMetrics } from '../../src/metrics/index.ts'
import { parseExposition, samplesOf, valueOf } from './exposition.ts'

function task(step: string, runId: string): TaskMessage {
  return firstAttemptTask({ runId, step })
}

void test('task queue gauges: ready, delayed and held per transport and step, the oldest ready age, redeliveries; a failed read is counted', async (t) => {
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
  const take = () =>
    worker.receive({
      steps: ['charge'],
      capabilities: [],
      max: 1,
      holdMs: 60_000,
      signal: AbortSignal.timeout(1_000),
    })
  const [first] = await take()
  assert.ok(first)
  await first.handBack() // delivered again below: one redelivery of charge
  const [held] = await take()
  assert.equal(held?.message.taskId, first.message.taskId)
  await new Promise((resolve) => setTimeout(resolve, 1_100))
  const metrics = createMetrics(engine, { backlogCacheMs: 0 })
  t.after(() => metrics.close())
  const read = async () => {
    const parsed = parseExposition(await metrics.render())
    const queued = samplesOf(parsed, 'cairn_tasks_queued')
      .map((s) => `${Object.values(s.labels).join('/')}=${s.value}`)
      .sort()
    const ages = samplesOf(parsed, 'cairn_tasks_oldest_ready_age_seconds')
    const redelivered = samplesOf(parsed, 'cairn_tasks_redelivered_total')
      .map((s) => `${Object.values(s.labels).join('/')}=${s.value}`)
      .sort()
    assert.equal(parsed.types.get('cairn_tasks_redelivered_total'), 'counter')
    return {
      queued,
      ages,
      redelivered,
      errors: valueOf(parsed, 'cairn_task_depth_read_errors_total'),
    }
  }
  const scraped = await read()
  assert.deepEqual(scraped.redelivered, ['q/charge=1', 'q/ship=0'])
  assert.deepEqual(scraped.queued, [
    'q/charge/delayed=1',
    'q/charge/held=1',
    'q/charge/ready=1',
    'q/ship/delayed=0',
    'q/ship/held=0',
    'q/ship/ready=1',
  ])
  for (const age of scraped.ages)
    assert.ok(age.value >= 1, `${JSON.stringify(age)}: waited over 1 s`)
  assert.equal(scraped.errors, 0)
  failing = true
  const second = await read()
  assert.deepEqual(second.queued, scraped.queued, 'a failed read keeps the last values')
  assert.deepEqual(second.redelivered, scraped.redelivered, 'and the last counts')
  assert.equal(second.errors, 1)
  await worker.close()
})
