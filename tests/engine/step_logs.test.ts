/**
 * Step logs and progress (issue 17, docs/step-logs.md): `stepCtx.log` and `stepCtx.progress`
 * are recorded with the step — with its outcome when it ends soon (no extra write), live at
 * `stepLogs.flushIntervalMs` while it runs — kept across attempts and bounded, reachable from
 * code the step calls through `currentStep()`, and never able to break the step. Every store.
 */
import assert from 'node:assert/strict'
import {
  currentStep,
  currentWorkflowContext,
  type Engine,
  type StepContext,
  type StepLogInfo,
} from '@cairn/core'
import { createMemoryTransport } from '@cairn/core/testing'
import type { Knex } from 'knex'
import { createWorker, type RemoteStepContext } from '@cairn/worker'
import { eachStore, type Env } from '../helpers/harness.ts'

/** Counts the engine's live writes (appendStepLogs calls) from now on. */
function countLiveWrites(engine: Engine): { count: number } {
  const store = engine.store
  const original = store.appendStepLogs.bind(store)
  const counter = { count: 0 }
  store.appendStepLogs = (appends, now) => {
    counter.count += 1
    return original(appends, now)
  }
  return counter
}

async function logsAt(engine: Engine, runId: string, seq: number): Promise<StepLogInfo> {
  const record = (await engine.getStepLogs(runId)).find((r) => r.seq === seq)
  if (record === undefined) assert.fail(`no step log record at position ${seq}`)
  return record
}

function messages(record: StepLogInfo): string[] {
  return record.lines.map((line) => line.message)
}

/** A gate a step awaits until the test opens it. */
function gate(): { wait: Promise<void>; open: () => void } {
  const { promise, resolve } = Promise.withResolvers<void>()
  return { wait: promise, open: () => resolve() }
}

async function eventually<T>(read: () => Promise<T>, ok: (value: T) => boolean): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const value = await read()
    if (ok(value)) return value
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  return read()
}

eachStore('step logs', (test) => {
  test('lines, fields and progress are recorded with the step’s outcome, in one write', async (env) => {
    const engine = await env.engine()
    const live = countLiveWrites(engine)
    const due = new Date('2030-01-02T03:04:05.000Z')
    engine.register('ship', 1, async (ctx) => {
      await ctx.localStep('label', () => 'ok')
      return ctx.localStep('pack', (step) => {
        step.log.info('packing', { sku: 'A-1', due, nested: { qty: 2 } })
        step.progress({ done: 3, total: 4 })
        step.log.warn('box is heavy')
        step.log.error('tape ran out', { rolls: 0 })
        return 'packed'
      })
    })
    const { runId } = await engine.start('ship', null)
    assert.equal((await engine.waitForRun(runId, { timeoutMs: 5_000 })).status, 'completed')
    const records = await engine.getStepLogs(runId)
    assert.deepEqual(
      records.map((r) => r.seq),
      [1],
      'only the step that logged has a record',
    )
    const record = records[0] as StepLogInfo
    assert.equal(record.name, 'pack')
    assert.deepEqual(messages(record), ['packing', 'box is heavy', 'tape ran out'])
    assert.deepEqual(
      record.lines.map((line) => [line.level, line.attempt, line.truncated]),
      [
        ['info', 1, false],
        ['warn', 1, false],
        ['error', 1, false],
      ],
    )
    assert.deepEqual(record.lines[0]?.fields, { sku: 'A-1', due, nested: { qty: 2 } })
    assert.ok((record.lines[0]?.fields as { due: unknown }).due instanceof Date, 'a Date stays one')
    assert.equal(record.lines[1]?.fields, undefined, 'no fields given: none')
    assert.equal(record.dropped, 0)
    assert.deepEqual(
      {
        fraction: record.progress?.fraction,
        done: record.progress?.done,
        total: record.progress?.total,
      },
      { fraction: 0.75, done: 3, total: 4 },
    )
    assert.equal(live.count, 0, 'a step that ends at once writes its lines with its outcome only')
  })

  test('a registered step logs through the context its handler gets', async (env) => {
    const engine = await env.engine()
    engine.registerStep('charge', (input: { cents: number }, step) => {
      step.log.info('charging', input)
      step.progress(1)
      return input.cents
    })
    engine.register('pay', 1, (ctx) => ctx.step('charge', { cents: 420 }))
    const { runId } = await engine.start('pay', null)
    assert.equal((await engine.waitForRun(runId, { timeoutMs: 5_000 })).status, 'completed')
    const record = await logsAt(engine, runId, 0)
    assert.deepEqual(
      record.lines.map((line) => [line.message, line.fields]),
      [['charging', { cents: 420 }]],
    )
    assert.equal(record.progress?.fraction, 1)
  })

  test(
    'a transactional step’s lines commit with its outcome; a failed attempt’s ride on its retry',
    async (env) => {
      const engine = await env.engine()
      const live = countLiveWrites(engine)
      engine.register('tx', 1, async (ctx) =>
        ctx.transaction(
          'book',
          async (trx: Knex.Transaction, step: StepContext) => {
            step.log.info(`booking, attempt ${step.attempt}`)
            await trx.raw('SELECT 1')
            if (step.attempt === 1) throw new Error('lock timeout')
            step.progress(1)
            return 'booked'
          },
          { retries: 2, backoff: { type: 'fixed', delay: 1 } },
        ),
      )
      const { runId } = await engine.start('tx', null)
      await env.skip(1)
      assert.equal((await engine.waitForRun(runId, { timeoutMs: 10_000 })).status, 'completed')
      const record = await logsAt(engine, runId, 0)
      assert.equal(record.name, 'book')
      assert.deepEqual(messages(record), ['booking, attempt 1', 'booking, attempt 2'])
      assert.equal(record.progress?.fraction, 1)
      assert.equal(live.count, 0, 'no live write: each attempt’s lines went with its save')
    },
    (store) => store.startsWith('knex-'),
  )

  test('lines of every attempt are kept, in order, across a retry that suspends the run', async (env) => {
    const engine = await env.engine({ holdTimersUpToMs: 0 })
    engine.register('flaky', 1, async (ctx) =>
      ctx.localStep(
        'call',
        (step) => {
          step.log.info(`try ${step.attempt}`)
          if (step.attempt < 3) throw new Error(`blip ${step.attempt}`)
          return step.attempt
        },
        { retries: 3, backoff: { type: 'fixed', delay: '10s', jitter: 0 } },
      ),
    )
    const { runId } = await engine.start('flaky', null)
    await env.skip(10_000)
    await env.skip(10_000)
    assert.deepEqual(await engine.waitForRun(runId, { timeoutMs: 5_000 }), {
      runId,
      status: 'completed',
      output: 3,
    })
    const record = await logsAt(engine, runId, 0)
    assert.deepEqual(messages(record), ['try 1', 'try 2', 'try 3'])
    assert.deepEqual(
      record.lines.map((line) => line.attempt),
      [1, 2, 3],
    )
  })

  test('past stepLogs.maxEntries the oldest lines go and are counted', async (env) => {
    const engine = await env.engine({ stepLogs: { maxEntries: 5 } })
    engine.register('chatty', 1, async (ctx) =>
      ctx.localStep('loop', (step) => {
        for (let i = 0; i < 12; i++) step.log.info(`line ${i}`)
        return 'done'
      }),
    )
    const { runId } = await engine.start('chatty', null)
    await engine.waitForRun(runId, { timeoutMs: 5_000 })
    const record = await logsAt(engine, runId, 0)
    assert.deepEqual(messages(record), ['line 7', 'line 8', 'line 9', 'line 10', 'line 11'])
    assert.equal(record.dropped, 7)
  })

  test('a running step’s lines and progress reach the store while it runs, each line once', async (env) => {
    const engine = await env.engine({ stepLogs: { flushIntervalMs: 100 } })
    const live = countLiveWrites(engine)
    const hold = gate()
    const started = gate()
    engine.register('long', 1, async (ctx) =>
      ctx.localStep('import', async (step) => {
        step.log.info('reading file')
        step.progress(0.25)
        started.open()
        await hold.wait
        step.log.info('all rows in')
        step.progress(1)
        return 'imported'
      }),
    )
    const { runId } = await engine.start('long', null)
    await started.wait
    assert.deepEqual(await engine.getStepLogs(runId), [], 'nothing before the interval')
    await env.skip(100)
    const running = await eventually(
      () => engine.getStepLogs(runId),
      (records) => records.length === 1,
    )
    assert.deepEqual(messages(running[0] as StepLogInfo), ['reading file'], 'visible while running')
    assert.equal(running[0]?.progress?.fraction, 0.25)
    assert.equal(live.count, 1, 'one live write')
    hold.open()
    assert.equal((await engine.waitForRun(runId, { timeoutMs: 5_000 })).status, 'completed')
    const record = await logsAt(engine, runId, 0)
    assert.deepEqual(messages(record), ['reading file', 'all rows in'], 'each line once')
    assert.equal(record.progress?.fraction, 1)
    assert.equal(live.count, 1, 'the rest came with the outcome')
  })

  test('lines logged after the step ended are written live, given up after five failed writes', async (env) => {
    const engine = await env.engine({ stepLogs: { flushIntervalMs: 100 } })
    const store = engine.store
    let calls = 0
    store.appendStepLogs = async () => {
      calls += 1
      throw new Error('database down')
    }
    const { promise: ended, resolve: end } = Promise.withResolvers<StepContext>()
    engine.register('leaves', 1, async (ctx) =>
      ctx.localStep('work', (step) => {
        end(step)
        return 'done'
      }),
    )
    const { runId } = await engine.start('leaves', null)
    assert.equal((await engine.waitForRun(runId, { timeoutMs: 5_000 })).status, 'completed')
    ;(await ended).log.info('logged by code the step left running')
    // Back-off 100, 200, 400, 800, 1,600 ms; then nothing, however long.
    for (let i = 0; i < 12; i++) await env.skip(2_000)
    assert.equal(calls, 5, 'five tries, then given up: no loop')
  })

  test('currentStep() reaches the step from code it calls; nothing else sees a step', async (env) => {
    const engine = await env.engine()
    const seen: Record<string, unknown> = {}
    // A service the step calls without handing it the context.
    const audit = async (what: string): Promise<void> => {
      await new Promise((resolve) => setImmediate(resolve))
      currentStep()?.log.info(`audit: ${what}`)
    }
    engine.register('scoped', 1, async (ctx) => {
      seen.body = currentStep()
      seen.sideEffect = await ctx.sideEffect(() => currentStep() === undefined, 'peek')
      return ctx.localStep('work', async (step: StepContext) => {
        seen.same = currentStep() === step
        seen.workflowInStep = currentWorkflowContext()
        await audit('charged')
        await new Promise<void>((resolve) =>
          setTimeout(() => {
            seen.inTimer = currentStep()?.seq
            resolve()
          }, 1),
        )
        return 'ok'
      })
    })
    const { runId } = await engine.start('scoped', null)
    await engine.waitForRun(runId, { timeoutMs: 5_000 })
    assert.equal(seen.body, undefined, 'a workflow body is no step')
    assert.equal(seen.sideEffect, true, 'a side effect is no step')
    assert.equal(seen.same, true, 'the step’s own context')
    assert.equal(seen.workflowInStep, undefined, 'a step is not workflow code')
    assert.equal(seen.inTimer, 1, 'kept across a timer the step set')
    assert.equal(currentStep(), undefined, 'outside any run')
    assert.deepEqual(messages(await logsAt(engine, runId, 1)), ['audit: charged'])
  })

  test('bad logging input never breaks the step; bad progress is a clear error', async (env) => {
    const engine = await env.engine()
    const circular: Record<string, unknown> = {}
    circular.self = circular
    engine.register('messy', 1, async (ctx) =>
      ctx.localStep('work', (step) => {
        step.log.info('x'.repeat(10_000))
        step.log.warn('circular', circular)
        step.log.info('a function', { fn: () => 1 } as unknown as Record<string, unknown>)
        step.log.info(42 as unknown as string)
        step.log.info('proto', JSON.parse('{"__proto__":{"admin":true},"ok":1}'))
        const refused = [
          Number.NaN,
          2,
          -1,
          { done: 1, total: Number.NaN },
          { done: -1, total: 2 },
        ].map((value) => {
          try {
            step.progress(value as number)
            return 'accepted'
          } catch (error) {
            return (error as { code?: string }).code
          }
        })
        return refused
      }),
    )
    const { runId } = await engine.start('messy', null)
    const outcome = await engine.waitForRun(runId, { timeoutMs: 5_000 })
    assert.deepEqual(outcome, {
      runId,
      status: 'completed',
      output: Array(5).fill('E_INVALID_ARGUMENT'),
    })
    const record = await logsAt(engine, runId, 0)
    const [long, cycle, fn, number, proto] = record.lines
    assert.equal(long?.message.length, 4096, 'cut to the limit')
    assert.equal(long?.truncated, true)
    assert.deepEqual([cycle?.fields, cycle?.truncated], [undefined, true], 'unencodable: left out')
    assert.equal(fn?.truncated, true)
    assert.equal(number?.message, '42')
    const fields = proto?.fields as Record<string, unknown>
    assert.ok(Object.hasOwn(fields, '__proto__'), '__proto__ stays a key, not a prototype')
    assert.equal(fields.ok, 1)
    assert.equal(({} as { admin?: unknown }).admin, undefined, 'nothing polluted')
    assert.equal(record.progress, null, 'no report was accepted')
  })
})

/** An engine whose workflow `draw` calls the remote step `render` on `transport`. */
async function drawingEngine(
  env: Env,
  transport: ReturnType<typeof createMemoryTransport>,
): Promise<Engine> {
  const engine = await env.engine({ transports: { memory: transport.engine() } })
  engine.registerStep('render', () => 'never here', { transport: 'memory' })
  engine.register('draw', 1, (ctx) => ctx.step('render', null))
  return engine
}

eachStore('step logs of remote steps', (test) => {
  test('a worker’s lines travel with its heartbeats (live) and its result (each once)', async (env) => {
    const transport = createMemoryTransport()
    const hold = gate()
    const started = gate()
    let scoped = false
    const worker = createWorker({
      transport: transport.worker(),
      steps: {
        render: async (_input: null, step) => {
          scoped = currentStep() === step
          step.log.info('rendering', { pages: 3 })
          step.progress({ done: 1, total: 3 })
          await (step as RemoteStepContext).heartbeat() // now, not in 5 s
          started.open()
          await hold.wait
          currentStep()?.log.warn('slow font')
          return 'drawn'
        },
      },
    })
    await worker.start()
    try {
      const engine = await drawingEngine(env, transport)
      const { runId } = await engine.start('draw', null)
      await started.wait
      const running = await eventually(
        () => engine.getStepLogs(runId),
        (records) => records.length === 1,
      )
      assert.deepEqual(messages(running[0] as StepLogInfo), ['rendering'], 'live, by heartbeat')
      assert.deepEqual(running[0]?.lines[0]?.fields, { pages: 3 })
      assert.equal(running[0]?.progress?.done, 1)
      hold.open()
      assert.deepEqual(await engine.waitForRun(runId, { timeoutMs: 10_000 }), {
        runId,
        status: 'completed',
        output: 'drawn',
      })
      assert.equal(running[0]?.name, null, 'a heartbeat does not say the step’s name')
      const record = await logsAt(engine, runId, 0)
      assert.equal(record.name, 'render', 'the result’s lines name it')
      assert.deepEqual(messages(record), ['rendering', 'slow font'], 'each line once')
      assert.deepEqual(
        record.lines.map((line) => [line.level, line.attempt]),
        [
          ['info', 1],
          ['warn', 1],
        ],
      )
      assert.equal(scoped, true, 'currentStep() on the worker is the handler’s context')
    } finally {
      await worker.close(100)
    }
  })
})

eachStore('step logs of a redelivered remote task', (test) => {
  test('a task delivered again to the same worker keeps both executions’ lines', async (env) => {
    const transport = createMemoryTransport()
    let executions = 0
    const worker = createWorker({
      transport: transport.worker(),
      holdMs: 300, // shorter than the 5 s heartbeat: the hold lapses and the task comes back
      steps: {
        render: async (_input: null, step) => {
          const n = ++executions
          step.log.info(`execution ${n}: started`)
          await (step as RemoteStepContext).heartbeat()
          if (n === 1) await new Promise(() => {}) // stuck, never heartbeats again
          step.log.info(`execution ${n}: done`)
          return `from ${n}`
        },
      },
    })
    await worker.start()
    try {
      const engine = await drawingEngine(env, transport)
      const { runId } = await engine.start('draw', null)
      assert.deepEqual(await engine.waitForRun(runId, { timeoutMs: 10_000 }), {
        runId,
        status: 'completed',
        output: 'from 2',
      })
      const record = await logsAt(engine, runId, 0)
      assert.deepEqual(messages(record), [
        'execution 1: started',
        'execution 2: started',
        'execution 2: done',
      ])
      assert.equal(record.dropped, 0)
    } finally {
      await worker.close(100)
    }
  })
})
