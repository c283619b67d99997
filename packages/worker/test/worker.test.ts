/**
 * The worker runtime against the memory transport: the test plays the engine's half (publishes
 * tasks, reads reports) and checks what a worker does with each.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { defineStep, FatalError, RetryableError } from '@cairn/core'
import { createCodec } from '@cairn/core/codec'
import type { EngineTransport, WorkerReport } from '@cairn/core/contracts'
import { createMemoryTransport } from '@cairn/core/testing'
import { taskIdOf, type ResultMessage, type TaskMessage } from '@cairn/core/wire'
import { createWorker, type RemoteStepContext, type Worker } from '../src/index.ts'

const codec = createCodec()
let counter = 0

function taskFor(step: string, input: unknown, fields: Partial<TaskMessage> = {}): TaskMessage {
  const runId = `run-${++counter}`
  return {
    v: 1,
    type: 'task',
    taskId: taskIdOf({ runId, seq: 3, attempt: 2 }),
    runId,
    seq: 3,
    attempt: 2,
    step,
    input: codec.encode(input),
    requires: [],
    timeoutMs: null,
    heartbeatIntervalMs: 50,
    dispatchedAt: Date.now(),
    ...fields,
  }
}

interface Rig {
  engine: EngineTransport
  reports: WorkerReport[]
  result(taskId: string): Promise<ResultMessage>
  worker: Worker
}

async function rig(
  t: { after(fn: () => Promise<void>): void },
  options: Omit<Parameters<typeof createWorker>[0], 'transport'>,
): Promise<Rig> {
  const transport = createMemoryTransport()
  const engine = transport.engine()
  const reports: WorkerReport[] = []
  await engine.consume(async (batch) => {
    reports.push(...batch)
  })
  const worker = createWorker({ transport: transport.worker(), announceEveryMs: 50, ...options })
  await worker.start()
  t.after(async () => {
    await worker.close(100)
    await engine.close()
  })
  const result = async (taskId: string): Promise<ResultMessage> => {
    for (let i = 0; i < 500; i++) {
      const found = reports.find(
        (r): r is ResultMessage => r.type === 'result' && r.taskId === taskId,
      )
      if (found) return found
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    throw new Error(`no result for ${taskId}; reports: ${JSON.stringify(reports)}`)
  }
  return { engine, reports, result, worker }
}

void test('a task runs its step with the decoded input and a step context; the output comes back encoded', async (t) => {
  let seen: RemoteStepContext | undefined
  const charge = defineStep('charge', async (input: { amount: number; at: Date }, step) => {
    seen = step as RemoteStepContext
    return { charged: input.amount, on: input.at, ids: new Map([['a', 1n]]) }
  })
  const r = await rig(t, { steps: [charge], workerId: 'w-test' })
  const at = new Date('2030-01-02T03:04:05.000Z')
  const task = taskFor('charge', { amount: 42, at })
  await r.engine.publish([{ message: task, delayMs: 0 }])
  const result = await r.result(task.taskId)
  assert.equal(result.workerId, 'w-test')
  assert.equal(result.outcome.status, 'completed')
  assert.ok(result.outcome.status === 'completed')
  assert.deepEqual(codec.decode(result.outcome.output), {
    charged: 42,
    on: at,
    ids: new Map([['a', 1n]]),
  })
  assert.equal(seen?.runId, task.runId)
  assert.equal(seen?.seq, 3)
  assert.equal(seen?.attempt, 2)
  assert.equal(seen?.taskId, task.taskId)
  assert.equal(seen?.idempotencyKey, `${task.runId}/3`)
  assert.equal(seen?.stepName, 'charge')
})

void test('errors: FatalError never retries, RetryableError carries its delay, others leave it to the policy', async (t) => {
  const r = await rig(t, {
    steps: {
      fatal: () => {
        throw new FatalError('card declined')
      },
      later: () => {
        throw new RetryableError('rate limited', { retryAfterMs: 1500 })
      },
      plain: () => {
        throw Object.assign(new TypeError('boom'), { code: 'E_BOOM' })
      },
    },
  })
  const tasks = [taskFor('fatal', null), taskFor('later', null), taskFor('plain', null)]
  await r.engine.publish(tasks.map((message) => ({ message, delayMs: 0 })))
  const [fatal, later, plain] = await Promise.all(tasks.map((task) => r.result(task.taskId)))
  const errorOf = (result: ResultMessage | undefined) => {
    assert.ok(result?.outcome.status === 'failed')
    return result.outcome.error
  }
  assert.equal(errorOf(fatal).retryable, false)
  assert.equal(errorOf(fatal).code, 'E_FATAL')
  assert.equal(errorOf(later).retryable, true)
  assert.equal(errorOf(later).retryAfterMs, 1500)
  assert.equal(errorOf(plain).retryable, undefined)
  assert.equal(errorOf(plain).name, 'TypeError')
  assert.equal(errorOf(plain).code, 'E_BOOM')
  const detail = codec.decode(errorOf(plain).detail ?? '') as { message: string }
  assert.equal(detail.message, 'boom')
})

void test('an attempt past its timeoutMs fails with E_STEP_TIMEOUT and its signal aborts, even if the handler ignores it', async (t) => {
  let aborted = false
  const r = await rig(t, {
    steps: {
      stuck: (_input, step) => {
        step.signal.addEventListener('abort', () => (aborted = true))
        return new Promise(() => {}) // never settles
      },
    },
  })
  const task = taskFor('stuck', null, { timeoutMs: 100 })
  await r.engine.publish([{ message: task, delayMs: 0 }])
  const result = await r.result(task.taskId)
  assert.ok(result.outcome.status === 'failed')
  assert.equal(result.outcome.error.code, 'E_STEP_TIMEOUT')
  assert.equal(aborted, true)
})

void test('a running attempt heartbeats on its own and with progress; the engine gets both', async (t) => {
  const r = await rig(t, {
    steps: {
      slow: async (_input, step) => {
        await (step as RemoteStepContext).heartbeat({ done: 1, of: 2 })
        await new Promise((resolve) => setTimeout(resolve, 200))
        return 'ok'
      },
    },
  })
  const task = taskFor('slow', null, { heartbeatIntervalMs: 40 })
  await r.engine.publish([{ message: task, delayMs: 0 }])
  await r.result(task.taskId)
  const beats = r.reports.filter((m) => m.type === 'heartbeat' && m.taskId === task.taskId)
  assert.ok(beats.length >= 2, `expected heartbeats, got ${beats.length}`)
  const progress = beats.find((b) => b.type === 'heartbeat' && b.progress !== undefined)
  assert.ok(progress?.type === 'heartbeat')
  assert.deepEqual(codec.decode(progress.progress ?? ''), { done: 1, of: 2 })
})

void test('concurrency bounds how many attempts run at once', async (t) => {
  let running = 0
  let most = 0
  const r = await rig(t, {
    concurrency: 3,
    steps: {
      busy: async () => {
        running += 1
        most = Math.max(most, running)
        await new Promise((resolve) => setTimeout(resolve, 30))
        running -= 1
        return null
      },
    },
  })
  const tasks = Array.from({ length: 12 }, () => taskFor('busy', null))
  await r.engine.publish(tasks.map((message) => ({ message, delayMs: 0 })))
  await Promise.all(tasks.map((task) => r.result(task.taskId)))
  assert.equal(most, 3)
})

void test('the worker announces its steps and capabilities, and says when it leaves', async (t) => {
  const transport = createMemoryTransport()
  const engine = transport.engine()
  const worker = createWorker({
    transport: transport.worker(),
    steps: { render: () => null },
    capabilities: ['gpu'],
    concurrency: 2,
    workerId: 'w-gpu',
  })
  const since = Date.now()
  await worker.start()
  t.after(() => engine.close())
  const [seen] = await engine.workers(since)
  assert.equal(seen?.workerId, 'w-gpu')
  assert.deepEqual(seen?.steps, ['render'])
  assert.deepEqual(seen?.capabilities, ['gpu'])
  assert.deepEqual(seen?.protocols, [1])
  assert.deepEqual(seen?.concurrency, { mode: 'fixed', limit: 2 })
  await worker.close()
  assert.deepEqual(await engine.workers(since), [])
})

void test('close lets a running attempt finish within the drain, then aborts what is left', async (t) => {
  const transport = createMemoryTransport()
  const engine = transport.engine()
  const reports: WorkerReport[] = []
  await engine.consume(async (batch) => {
    reports.push(...batch)
  })
  t.after(() => engine.close())
  const worker = createWorker({
    transport: transport.worker(),
    steps: {
      quick: async () => {
        await new Promise((resolve) => setTimeout(resolve, 50))
        return 'finished'
      },
      endless: (_input, step) =>
        new Promise((_resolve, reject) =>
          step.signal.addEventListener('abort', () => reject(step.signal.reason)),
        ),
    },
  })
  await worker.start()
  const quick = taskFor('quick', null)
  const endless = taskFor('endless', null)
  await engine.publish([
    { message: quick, delayMs: 0 },
    { message: endless, delayMs: 0 },
  ])
  while (worker.inFlight < 2) await new Promise((resolve) => setTimeout(resolve, 5))
  await worker.close(300)
  await new Promise((resolve) => setTimeout(resolve, 50))
  const results = reports.filter((m): m is ResultMessage => m.type === 'result')
  const quickResult = results.find((m) => m.taskId === quick.taskId)
  const endlessResult = results.find((m) => m.taskId === endless.taskId)
  assert.ok(quickResult?.outcome.status === 'completed')
  assert.ok(endlessResult?.outcome.status === 'failed')
  assert.match(endlessResult.outcome.error.message, /shutting down/)
  assert.equal(worker.inFlight, 0)
})

void test('bad options are refused at creation with E_INVALID_ARGUMENT', () => {
  const transport = createMemoryTransport().worker()
  assert.throws(() => createWorker({ transport, steps: {} }), { code: 'E_INVALID_ARGUMENT' })
  for (const concurrency of [0, -1, 1.5, Number.NaN, 2 ** 31])
    assert.throws(() => createWorker({ transport, steps: { a: () => 1 }, concurrency }), {
      code: 'E_INVALID_ARGUMENT',
    })
  const a = defineStep('a', () => 1)
  assert.throws(() => createWorker({ transport, steps: [a, a] }), { code: 'E_INVALID_ARGUMENT' })
})

void test('adaptive concurrency grows while tasks wait and the process is calm, and announces it', async (t) => {
  const r = await rig(t, {
    concurrency: { mode: 'adaptive', min: 1, max: 8, sampleEveryMs: 50 },
    steps: { nap: () => new Promise((resolve) => setTimeout(resolve, 40, null)) },
  })
  assert.equal(r.worker.limit, 1, 'starts at min')
  const tasks = Array.from({ length: 200 }, () => taskFor('nap', null))
  await r.engine.publish(tasks.map((message) => ({ message, delayMs: 0 })))
  await until(
    () => r.worker.limit === 8,
    () => `limit ${r.worker.limit}`,
  )
  const [seen] = await r.engine.workers(0)
  assert.equal(seen?.concurrency.mode, 'adaptive')
  assert.deepEqual([seen?.concurrency.min, seen?.concurrency.max], [1, 8])
  await until(
    async () => ((await r.engine.workers(0))[0]?.concurrency.limit ?? 0) > 1,
    () => 'an announcement with the grown limit',
  )
})

void test('adaptive concurrency backs off when handlers starve the event loop', async (t) => {
  let busy = false
  const r = await rig(t, {
    concurrency: { mode: 'adaptive', min: 1, max: 16, sampleEveryMs: 100, maxEventLoopDelayMs: 50 },
    steps: {
      work: async () => {
        if (!busy) return new Promise((resolve) => setTimeout(resolve, 20, null))
        const until = Date.now() + 120 // synchronous: the loop waits
        while (Date.now() < until);
        // Then some I/O, as real handlers do: the loop turns, and timers fire.
        return new Promise((resolve) => setImmediate(resolve, null))
      },
    },
  })
  const tasks = Array.from({ length: 400 }, () => taskFor('work', null))
  await r.engine.publish(tasks.map((message) => ({ message, delayMs: 0 })))
  await until(
    () => r.worker.limit >= 8,
    () => `limit ${r.worker.limit} never grew`,
  )
  busy = true
  await until(
    () => r.worker.limit <= 2,
    () => `limit ${r.worker.limit} did not fall`,
    20_000,
  )
})

async function until(
  done: () => boolean | Promise<boolean>,
  what: () => string,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await done())) {
    if (Date.now() > deadline) assert.fail(`timed out: ${what()}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

void test('close drains on time when every slot is taken by a handler that never ends', async (t) => {
  const r = await rig(t, {
    concurrency: 1,
    steps: { hang: () => new Promise(() => {}) },
  })
  const stuck = taskFor('hang', null)
  await r.engine.publish([{ message: stuck, delayMs: 0 }])
  await until(
    () => r.worker.inFlight === 1,
    () => 'the handler to start',
  )
  const closed = r.worker.close(200)
  const done = await Promise.race([
    closed.then(() => true),
    new Promise<false>((resolve) => setTimeout(resolve, 5_000, false)),
  ])
  assert.equal(done, true, 'close waited for a slot instead of draining')
  const result = await r.result(stuck.taskId)
  assert.equal(result.outcome.status, 'failed', 'the aborted attempt completes as failed')
})

void test('announceEveryMs above 10 s is refused: engines count a worker live for 30 s', () => {
  const transport = createMemoryTransport().worker()
  assert.throws(() => createWorker({ transport, steps: { a: () => 1 }, announceEveryMs: 10_001 }), {
    code: 'E_INVALID_ARGUMENT',
    message: /announceEveryMs must be an integer from 1 to 10000/,
  })
})
