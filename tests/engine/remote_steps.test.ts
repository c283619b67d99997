/**
 * Remote steps (issue 14): a registered step placed on a transport runs on a worker, not in the
 * engine; its result comes back through the run's inbox and is recorded by the run's turn. On
 * every store, with the memory transport and a real @cairn/worker.
 */
import assert from 'node:assert/strict'
import { FatalError, type Engine } from '@cairn/core'
import type { EngineTransport, TaskToPublish } from '@cairn/core/contracts'
import { createMemoryTransport, type MemoryTransport } from '@cairn/core/testing'
import { createWorker, type Worker, type WorkerOptions } from '@cairn/worker'
import { eachStore, type Env } from '../helpers/harness.ts'

interface Fleet {
  engine: Engine
  transport: MemoryTransport
  worker: Worker
  close(): Promise<void>
}

/** An engine with the memory transport, and one worker serving `steps`. */
async function fleet(
  env: Env,
  steps: WorkerOptions['steps'],
  engineTransport?: EngineTransport,
): Promise<Fleet> {
  const transport = createMemoryTransport()
  const engine = await env.engine({ transports: { memory: engineTransport ?? transport.engine() } })
  const worker = createWorker({ transport: transport.worker(), steps, holdMs: 5_000 })
  await worker.start()
  return { engine, transport, worker, close: () => worker.close(100) }
}

/** The engine registers the step on the transport; its handler must never run in the engine. */
function registerRemote(engine: Engine, name: string): void {
  engine.registerStep(
    name,
    () => {
      throw new Error(`step "${name}" ran in the engine`)
    },
    { transport: 'memory', retries: 2, backoff: { delay: '10ms', jitter: 0 } },
  )
}

eachStore('remote steps', (test) => {
  test('a remote step emits task:dispatched per publish and the step:* events of its outcomes', async (env) => {
    const f = await fleet(env, {
      flaky: (input: { n: number }, step) => {
        if (step.attempt === 1) throw new Error('first try fails')
        return input.n
      },
    })
    try {
      registerRemote(f.engine, 'flaky')
      const seen: string[] = []
      f.engine.on('task:dispatched', (e) =>
        seen.push(
          `dispatched ${e.name}#${e.attempt} on ${e.transport}${e.republished ? ' again' : ''}`,
        ),
      )
      f.engine.on('step:retried', (e) =>
        seen.push(`retried ${e.name}#${e.attempt} ${e.error.message}`),
      )
      f.engine.on('step:completed', (e) => {
        assert.ok(e.durationMs >= 0)
        seen.push(`completed ${e.name}#${e.attempt}`)
      })
      f.engine.register('once', 1, async (ctx) => ctx.step<number>('flaky', { n: 5 }))
      const { runId } = await f.engine.start('once', null)
      await env.settle()
      await env.skip(10) // the back-off
      assert.equal((await f.engine.waitForRun(runId, { timeoutMs: 10_000 })).status, 'completed')
      assert.deepEqual(seen, [
        'dispatched flaky#1 on memory',
        'retried flaky#1 first try fails',
        'dispatched flaky#2 on memory',
        'completed flaky#2',
      ])
    } finally {
      await f.close()
    }
  })

  test('a transport that cannot be reached does not stop the engine; it connects when it can', async (env) => {
    const transport = createMemoryTransport()
    const real = transport.engine()
    let refusals = 2
    const flaky: EngineTransport = {
      name: 'memory',
      open: async () => {
        if (refusals > 0) {
          refusals -= 1
          throw new Error('connect ECONNREFUSED 127.0.0.1:6379')
        }
        await real.open()
      },
      close: () => real.close(),
      consume: (handler) => real.consume(handler),
      workers: (since) => real.workers(since),
      withdraw: (task) => real.withdraw(task),
      depth: (now, steps) => real.depth(now, steps),
      publish: (tasks) => real.publish(tasks),
    }
    const engine = await env.engine({ transports: { memory: flaky } }) // startDriving resolved
    registerRemote(engine, 'ship')
    engine.register('local', 1, async (ctx) => ctx.localStep('pack', () => 'packed'))
    engine.register('remote', 1, async (ctx) => ctx.step('ship', null))
    const local = await engine.start('local', null)
    assert.deepEqual(await engine.waitForRun(local.runId, { timeoutMs: 10_000 }), {
      runId: local.runId,
      status: 'completed',
      output: 'packed',
    })
    const worker = createWorker({ transport: transport.worker(), steps: { ship: () => 'shipped' } })
    await worker.start()
    try {
      const remote = await engine.start('remote', null)
      await env.skip(1_000) // the second attempt to connect fails too
      assert.equal(refusals, 0)
      await env.skip(2_000) // the third connects; the task (published meanwhile) is done
      assert.deepEqual(await engine.waitForRun(remote.runId, { timeoutMs: 10_000 }), {
        runId: remote.runId,
        status: 'completed',
        output: 'shipped',
      })
    } finally {
      await worker.close(100)
    }
  })

  test("a foreign worker's wire retryAfterMs holds the next attempt back, whatever its error's class", async (env) => {
    const transport = createMemoryTransport()
    const engine = await env.engine({ transports: { memory: transport.engine() } })
    registerRemote(engine, 'busy') // retries: 2, backoff 10 ms
    engine.register('polite', 1, async (ctx) => ctx.step('busy', null))
    const { runId } = await engine.start('polite', null)
    // A worker in another language: no codec detail, no code, only the wire's retryAfterMs.
    const worker = transport.worker()
    const take = async () =>
      worker.receive({
        steps: ['busy'],
        capabilities: [],
        max: 1,
        holdMs: 60_000,
        signal: AbortSignal.timeout(200),
      })
    const [first] = await take()
    assert.ok(first !== undefined)
    const now = Date.now()
    await first.complete({
      v: 1,
      type: 'result',
      taskId: first.message.taskId,
      runId,
      seq: first.message.seq,
      attempt: 1,
      workerId: 'py-1',
      startedAt: now,
      finishedAt: now,
      outcome: {
        status: 'failed',
        error: { name: 'RateLimited', message: 'slow down', retryable: true, retryAfterMs: 60_000 },
      },
    })
    await env.settle()
    await env.skip(30_000)
    assert.deepEqual(await take(), [], 'the next attempt came before the 60 s the worker asked for')
    await env.skip(31_000)
    const [second] = await take()
    assert.equal(second?.message.attempt, 2)
    await worker.close()
  })

  test('listWorkers: the live fleet on each transport, with the protocol agreed; a worker that left is gone', async (env) => {
    const transport = createMemoryTransport()
    const engine = await env.engine({ transports: { memory: transport.engine() } })
    const worker = createWorker({
      transport: transport.worker(),
      workerId: 'w-gpu',
      capabilities: ['gpu'],
      concurrency: 3,
      steps: { render: () => 1 },
    })
    await worker.start()
    try {
      const [seen, ...others] = await engine.listWorkers()
      assert.deepEqual(others, [])
      assert.deepEqual(
        [seen?.transport, seen?.workerId, seen?.capabilities, seen?.steps, seen?.concurrency],
        ['memory', 'w-gpu', ['gpu'], ['render'], { mode: 'fixed', limit: 3 }],
      )
      assert.equal(seen?.protocol, 1)
      assert.equal(seen?.pid, process.pid)
      await assert.rejects(engine.listWorkers({ seenWithinMs: Number.NaN }), /seenWithinMs/)
      await assert.rejects(engine.listWorkers({ since: 1 } as never), /unknown option "since"/)
    } finally {
      await worker.close(100)
    }
    assert.deepEqual(await engine.listWorkers(), [], 'a worker that announced it leaves is listed')
  })

  test('a step that requires capabilities goes only to a worker that offers them', async (env) => {
    const transport = createMemoryTransport()
    const engine = await env.engine({ transports: { memory: transport.engine() } })
    const ranOn: string[] = []
    const plain = createWorker({
      transport: transport.worker(),
      steps: { render: () => ranOn.push('plain') },
    })
    const gpu = createWorker({
      transport: transport.worker(),
      capabilities: ['pdf', 'gpu'],
      steps: { render: () => ranOn.push('gpu') },
    })
    await plain.start()
    try {
      engine.registerStep('render', () => 'never here', {
        transport: 'memory',
        requires: ['gpu', 'pdf'],
      })
      engine.register('draw', 1, async (ctx) => ctx.step('render', null))
      const { runId } = await engine.start('draw', null)
      await env.settle()
      await env.skip(6_000) // past the hold: only the plain worker is up, and it never gets it
      assert.deepEqual(ranOn, [])
      assert.equal(transport.broker.pendingTasks(), 1)
      await gpu.start()
      const outcome = await engine.waitForRun(runId, { timeoutMs: 10_000 })
      assert.equal(outcome.status, 'completed')
      assert.deepEqual(ranOn, ['gpu'])
    } finally {
      await plain.close(100)
      await gpu.close(100)
    }
  })

  test('results that come back while the turn holds the run are recorded without a suspend; a retry too', async (env) => {
    let calls = 0
    const f = await fleet(env, {
      flaky: (input: { n: number }, step) => {
        calls += 1
        if (input.n === 1 && step.attempt === 1) throw new Error('first try fails')
        return input.n * 10
      },
    })
    try {
      registerRemote(f.engine, 'flaky')
      let suspensions = 0
      f.engine.on('run:suspended', () => suspensions++)
      f.engine.register('three', 1, async (ctx) => {
        const out: number[] = []
        for (let n = 0; n < 3; n++) out.push(await ctx.step<number>('flaky', { n }))
        return out
      })
      const { runId } = await f.engine.start('three', null)
      await env.settle()
      await env.skip(10) // the failed attempt's back-off (10 ms, held in memory)
      const outcome = await f.engine.waitForRun(runId, { timeoutMs: 10_000 })
      assert.deepEqual(outcome, { runId, status: 'completed', output: [0, 10, 20] })
      assert.equal(calls, 4)
      assert.equal(suspensions, 0, 'a result within holdTimersUpToMs went through a suspend')
      const steps = await f.engine.getSteps(runId)
      assert.deepEqual(
        steps.map((s) => [s.seq, s.status, s.attempts]),
        [
          [0, 'completed', 1],
          [1, 'completed', 2],
          [2, 'completed', 1],
        ],
      )
      assert.deepEqual(
        await env.handle.store.loadInbox(runId),
        [],
        'a result was left in the inbox',
      )
    } finally {
      await f.close()
    }
  })

  test('a step on a transport runs on the worker; the run completes with its output', async (env) => {
    const ran: string[] = []
    const f = await fleet(env, {
      charge: (input: { amount: number }, step) => {
        ran.push(`${step.runId}/${step.seq}#${step.attempt}`)
        return { chargeId: `ch-${input.amount}`, at: new Date(0) }
      },
    })
    try {
      registerRemote(f.engine, 'charge')
      f.engine.register('checkout', 1, async (ctx, amount: number) => {
        const before = await ctx.localStep('reserve', () => 'reserved')
        const charge = await ctx.step<{ chargeId: string; at: Date }>('charge', { amount })
        return { before, charge }
      })
      const { runId } = await f.engine.start('checkout', 42)
      const outcome = await f.engine.waitForRun(runId, { timeoutMs: 10_000 })
      assert.deepEqual(outcome, {
        runId,
        status: 'completed',
        output: { before: 'reserved', charge: { chargeId: 'ch-42', at: new Date(0) } },
      })
      assert.deepEqual(ran, [`${runId}/1#1`])
      const steps = await f.engine.getSteps(runId)
      assert.deepEqual(
        steps.map((s) => [s.seq, s.name, s.kind, s.status, s.attempts]),
        [
          [0, 'reserve', 'local', 'completed', 1],
          [1, 'charge', 'step', 'completed', 1],
        ],
      )
    } finally {
      await f.close()
    }
  })

  test('a failed attempt is retried by the step policy on the worker; FatalError is not', async (env) => {
    let flaky = 0
    const f = await fleet(env, {
      flaky: () => {
        flaky += 1
        if (flaky < 3) throw new Error(`network blip ${flaky}`)
        return 'third time'
      },
      declined: () => {
        throw new FatalError('card declined')
      },
    })
    try {
      registerRemote(f.engine, 'flaky')
      registerRemote(f.engine, 'declined')
      f.engine.register('retry', 1, async (ctx) => ctx.step('flaky', null))
      f.engine.register('fatal', 1, async (ctx) => ctx.step('declined', null))
      const retried = await f.engine.start('retry', null)
      const fatal = await f.engine.start('fatal', null)
      // The backoff (10 ms on the engine's fake clock) passes as the test moves the clock.
      const outcomes = Promise.all([
        f.engine.waitForRun(retried.runId, { timeoutMs: 20_000 }),
        f.engine.waitForRun(fatal.runId, { timeoutMs: 20_000 }),
      ])
      for (let i = 0; i < 40 && flaky < 3; i++) await env.skip(20)
      const [ok, failed] = await outcomes
      assert.deepEqual(ok, { runId: retried.runId, status: 'completed', output: 'third time' })
      assert.equal(failed.status, 'failed')
      assert.ok(failed.status === 'failed')
      assert.equal((failed.error as { code?: string }).code, 'E_FATAL')
      const [flakyStep] = await f.engine.getSteps(retried.runId)
      assert.equal(flakyStep?.attempts, 3)
      const [declinedStep] = await f.engine.getSteps(fatal.runId)
      assert.equal(declinedStep?.attempts, 1)
      assert.equal(flaky, 3)
    } finally {
      await f.close()
    }
  })

  test('a duplicate result and a late result of an earlier attempt are recorded nowhere', async (env) => {
    let calls = 0
    const f = await fleet(env, {
      twice: () => {
        calls += 1
        if (calls === 1) throw new Error('first attempt fails')
        return `attempt ${calls}`
      },
    })
    try {
      registerRemote(f.engine, 'twice')
      f.engine.register('dupes', 1, async (ctx) => ctx.step('twice', null))
      const { runId } = await f.engine.start('dupes', null)
      const outcome = f.engine.waitForRun(runId, { timeoutMs: 20_000 })
      for (let i = 0; i < 40 && calls < 2; i++) await env.skip(20)
      assert.deepEqual(await outcome, { runId, status: 'completed', output: 'attempt 2' })
      // Attempt 1 completing late, and attempt 2's result again: both after the outcome.
      const late = JSON.stringify(resultFor(runId, 0, 1, '"late attempt 1"'))
      const again = JSON.stringify(resultFor(runId, 0, 2, '"attempt 2 again"'))
      f.transport.broker.reportRaw(late)
      f.transport.broker.reportRaw(again)
      await env.settle()
      const [step] = await f.engine.getSteps(runId)
      assert.equal(step?.status, 'completed')
      assert.equal(step?.output, 'attempt 2')
      assert.deepEqual(await f.engine.waitForRun(runId), {
        runId,
        status: 'completed',
        output: 'attempt 2',
      })
    } finally {
      await f.close()
    }
  })

  test('a task lost before it reached the broker is published again at its checks (10 s, then 20 s)', async (env) => {
    const transport = createMemoryTransport()
    const real = transport.engine()
    let dropped = 0
    // The first two publishes are lost, as when the engine dies between the save and the publish
    // and the broker then restarts empty.
    const lossy: EngineTransport = {
      name: 'memory',
      open: () => real.open(),
      close: () => real.close(),
      consume: (handler) => real.consume(handler),
      workers: (since) => real.workers(since),
      withdraw: (task) => real.withdraw(task),
      depth: (now, steps) => real.depth(now, steps),
      publish: async (tasks: readonly TaskToPublish[]) => {
        if (dropped < 2) {
          dropped += 1
          return
        }
        await real.publish(tasks)
      },
    }
    const engine = await env.engine({ transports: { memory: lossy } })
    const worker = createWorker({ transport: transport.worker(), steps: { ship: () => 'shipped' } })
    await worker.start()
    try {
      registerRemote(engine, 'ship')
      engine.register('lossy', 1, async (ctx) => ctx.step('ship', null))
      const { runId } = await engine.start('lossy', null)
      await env.settle()
      assert.equal(dropped, 1)
      // The turn holds the run in memory for its result (holdTimersUpToMs, 5 s), then suspends.
      assert.equal((await engine.getRun(runId))?.status, 'running')
      await env.skip(6_000)
      await env.settle()
      assert.equal((await engine.getRun(runId))?.status, 'waiting')
      assert.equal(dropped, 1)
      await env.skip(5_000) // past the first check (10 s): published again, lost again
      assert.equal(dropped, 2)
      assert.equal((await engine.getRun(runId))?.status, 'waiting')
      await env.skip(5_000) // 16 s: the next check is at 20 s
      assert.equal((await engine.getRun(runId))?.status, 'waiting')
      await env.skip(5_000) // 21 s: published again, delivered
      assert.deepEqual(await engine.waitForRun(runId, { timeoutMs: 10_000 }), {
        runId,
        status: 'completed',
        output: 'shipped',
      })
    } finally {
      await worker.close(100)
    }
  })

  test('with no result by timeoutMs plus the grace, the attempt fails E_STEP_TIMEOUT (no worker at all)', async (env) => {
    const transport = createMemoryTransport()
    const engine = await env.engine({ transports: { memory: transport.engine() } })
    engine.registerStep('unserved', () => 'never here', {
      transport: 'memory',
      timeoutMs: 1_000,
      retries: 0,
    })
    engine.register('timeout', 1, async (ctx) => ctx.step('unserved', null))
    const { runId } = await engine.start('timeout', null)
    await env.skip(5_500) // timeoutMs (1 s) + grace (5 s) not passed yet
    assert.equal((await engine.getRun(runId))?.status, 'blocked') // no worker at all
    await env.skip(1_000)
    const outcome = await engine.waitForRun(runId, { timeoutMs: 10_000 })
    assert.equal(outcome.status, 'failed')
    assert.ok(outcome.status === 'failed')
    assert.equal((outcome.error as { code?: string }).code, 'E_STEP_TIMEOUT')
  })

  test('the result of a run cancelled meanwhile is dropped; the run stays cancelled', async (env) => {
    let release: () => void = () => {}
    const started = Promise.withResolvers<void>()
    const f = await fleet(env, {
      slow: () =>
        new Promise<string>((resolve) => {
          started.resolve()
          release = () => resolve('too late')
        }),
    })
    try {
      registerRemote(f.engine, 'slow')
      f.engine.register('cancelled', 1, async (ctx) => ctx.step('slow', null))
      const { runId } = await f.engine.start('cancelled', null)
      await started.promise
      await f.engine.cancel(runId)
      release()
      await waitFor(() => f.worker.inFlight === 0)
      await env.settle()
      assert.equal((await f.engine.getRun(runId))?.status, 'cancelled')
      assert.equal(f.transport.broker.pendingTasks(), 0)
      const steps = await f.engine.getSteps(runId)
      assert.deepEqual(
        steps.map((s) => [s.name, s.status, s.output]),
        [['slow', 'waiting', undefined]],
        'the late result was recorded',
      )
    } finally {
      await f.close()
    }
  })

  test('a saga cancel does not wait for the result of a remote step the turn holds the run for', async (env) => {
    let release: () => void = () => {}
    const started = Promise.withResolvers<void>()
    const f = await fleet(env, {
      slow: () =>
        new Promise<string>((resolve) => {
          started.resolve()
          release = () => resolve('never recorded')
        }),
    })
    try {
      registerRemote(f.engine, 'slow')
      f.engine.register('held', 1, async (ctx) => ctx.step('slow', null))
      const { runId } = await f.engine.start('held', null)
      await started.promise
      assert.equal((await f.engine.getRun(runId))?.status, 'running') // held for its result
      await f.engine.cancel(runId, { compensate: true })
      await env.settle() // no fake time passes: the hold (5 s) does not delay the unwinding
      assert.equal((await f.engine.getRun(runId))?.status, 'cancelled')
    } finally {
      release()
      await waitFor(() => f.worker.inFlight === 0)
      await f.close()
    }
  })

  test('another engine settles a result after the dispatching one closed', async (env) => {
    const transport = createMemoryTransport()
    const first = await env.engine({ transports: { memory: transport.engine() } })
    registerRemote(first, 'report')
    first.register('handover', 1, async (ctx) => ctx.step('report', null))
    const { runId } = await first.start('handover', null)
    await env.settle()
    await first.close()
    // No worker yet: the task waits in the broker. A second engine, then a worker.
    const second = await env.engine({ transports: { memory: transport.engine() } })
    registerRemote(second, 'report')
    second.register('handover', 1, async (ctx) => ctx.step('report', null))
    const worker = createWorker({ transport: transport.worker(), steps: { report: () => 'filed' } })
    await worker.start()
    try {
      assert.deepEqual(await second.waitForRun(runId, { timeoutMs: 10_000 }), {
        runId,
        status: 'completed',
        output: 'filed',
      })
    } finally {
      await worker.close(100)
    }
  })

  test('a transport the engine does not have is refused: at registerStep, and at the call', async (env) => {
    const engine = await env.engine({ transports: { memory: createMemoryTransport().engine() } })
    assert.throws(() => engine.registerStep('x', () => 1, { transport: 'bullmq' }), {
      code: 'E_INVALID_ARGUMENT',
      message: /transport "bullmq" is not one of this engine's transports/,
    })
    engine.registerStep('local', () => 1)
    engine.register('wrong', 1, async (ctx) => ctx.step('local', null, { transport: 'nope' }))
    const { runId } = await engine.start('wrong', null)
    const outcome = await engine.waitForRun(runId, { timeoutMs: 10_000 })
    assert.equal(outcome.status, 'failed')
    assert.ok(outcome.status === 'failed')
    assert.equal((outcome.error as { code?: string }).code, 'E_INVALID_ARGUMENT')
  })
})

function resultFor(runId: string, seq: number, attempt: number, output: string) {
  const taskId = `${Buffer.from(runId).toString('base64url')}.${seq}.${attempt}`
  return {
    v: 1,
    type: 'result',
    taskId,
    runId,
    seq,
    attempt,
    workerId: 'w-late',
    startedAt: Date.now(),
    finishedAt: Date.now(),
    outcome: { status: 'completed', output },
  }
}

async function waitFor(done: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 10))
  assert.ok(done(), 'timed out waiting')
}
