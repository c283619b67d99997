/**
 * Every options object of the Engine and ctx API refuses a key it does not take, with
 * E_INVALID_ARGUMENT naming the key and the call, and nothing happens: no workflow or step is
 * registered, no run created, no signal sent, no step run. Inside a workflow the refusal is a
 * programming error like any other bad argument: the call throws, and uncaught it fails the
 * run (once: it is not retried, and the step's function never runs).
 */
import assert from 'node:assert/strict'
import { test, type TestContext } from 'node:test'
import { createCodec } from '../src/codec/index.ts'
import { Engine } from '../src/engine/engine.ts'
import { defineStep } from '../src/execution/define_step.ts'
import type { WorkflowContext } from '../src/execution/types.ts'
import { MemoryStore } from '../src/store/memory/memory_store.ts'
import { instrumentCairn } from '../src/otel/index.ts'
import { createTestEngine } from '../src/testing/index.ts'

const NOT_YET = /is not in Cairn yet \(docs\/migrating-from-adonis-agora-durable\.md\)/

async function testEngine(t: TestContext) {
  const harness = await createTestEngine()
  t.after(() => harness.close())
  return harness.engine
}

/** An assert.throws/rejects check: E_INVALID_ARGUMENT naming `option`, matching `pattern`. */
function refusal(option: string, pattern: RegExp = new RegExp(`unknown option "${option}"`)) {
  return (error: Error & { code?: string; details?: Record<string, unknown> }) => {
    assert.equal(error.code, 'E_INVALID_ARGUMENT', error.message)
    assert.match(error.message, pattern)
    assert.equal(error.details?.option, option)
    return true
  }
}

/** What a workflow body saw when it called `fn`: the error's code and message, or 'ok'. */
async function outcomeOf(fn: () => unknown): Promise<string> {
  try {
    await fn()
    return 'ok'
  } catch (error) {
    return `${(error as { code?: string }).code}: ${(error as Error).message}`
  }
}

void test('engine.register: a seed option (requires, tags …) is refused as not yet in Cairn, and nothing is registered', async (t) => {
  const engine = await testEngine(t)
  const body = async () => 'done'
  const notYet = ['requires', 'tags']
  for (const option of notYet) {
    assert.throws(
      () => engine.register('order', 1, body, { [option]: {} } as never),
      refusal(
        option,
        new RegExp(`^workflow "order": unknown option "${option}": .*${NOT_YET.source}`),
      ),
    )
  }
  assert.throws(
    () => engine.register('order', 1, body, { executionTimeout: '30s' } as never),
    refusal('executionTimeout', /Cairn names it executionTimeoutMs/),
  )
  assert.throws(
    () => engine.register('order', 1, body, { validateInput: () => true } as never),
    refusal('validateInput', /Cairn checks the input at start with inputSchema/),
  )
  assert.throws(() => engine.register('order', 1, body, { inputSchema: {} } as never), {
    code: 'E_INVALID_ARGUMENT',
    message: /inputSchema must be a Standard Schema/,
  })
  assert.throws(
    () => engine.register('order', 1, body, { retry: { retries: 1, attempts: 3 } } as never),
    refusal('attempts', /^workflow "order" retry: unknown option "attempts"/),
  )
  assert.throws(
    () => engine.register('order', 1, body, { retry: { backoff: { delayMs: 5 } } } as never),
    refusal(
      'delayMs',
      /^workflow "order" retry\.backoff: unknown option "delayMs" \(backoff takes type, delay/,
    ),
  )
  assert.throws(
    () => engine.register('order', 1, body, JSON.parse('{"__proto__": {"onEvent": 1}}')),
    refusal('__proto__'),
  )
  assert.deepEqual(engine.registeredWorkflows(), [])
  // Known keys, undefined ones included, are taken exactly as before.
  engine.register('order', 1, body, { executionTimeoutMs: undefined, retry: { retries: 0 } })
  assert.deepEqual(engine.registeredWorkflows(), [{ workflow: 'order', version: '1' }])
})

void test('engine.start: an unknown or seed option creates no run', async (t) => {
  const engine = await testEngine(t)
  engine.register('order', 1, async () => 'done')
  for (const option of ['namespace', 'searchAttributes']) {
    await assert.rejects(
      engine.start('order', null, { runId: 'o-1', [option]: 1 } as never),
      refusal(
        option,
        new RegExp(`^engine\\.start\\("order"\\): unknown option "${option}": .*${NOT_YET.source}`),
      ),
    )
  }
  await assert.rejects(
    engine.start('order', null, { runID: 'o-1' } as never),
    refusal('runID', /\(engine\.start takes runId, version, tags, priority, queue\)/),
  )
  await assert.rejects(
    engine.start('order', null, JSON.parse('{"runId": "o-1", "__proto__": {"tags": ["x"]}}')),
    refusal('__proto__'),
  )
  // @adonis-agora/durable's start(name, input, runId): the id goes in the options here.
  await assert.rejects(engine.start('order', null, 'o-1' as never), {
    code: 'E_INVALID_ARGUMENT',
    message: 'engine.start("order"): the run id goes in the options: start(name, input, { runId })',
  })
  assert.deepEqual((await engine.listRuns()).runs, [])
  const started = await engine.start('order', null, { runId: 'o-1', version: undefined })
  assert.equal((await engine.waitForRun(started.runId, { timeoutMs: 5_000 })).status, 'completed')
})

void test('ctx.localStep: an unknown option fails the run with E_INVALID_ARGUMENT, once, without running the step', async (t) => {
  const engine = await testEngine(t)
  let calls = 0
  engine.register('charge', 1, async (ctx) =>
    ctx.localStep('charge', () => ++calls, { retries: 2, backoffMs: 100 } as never),
  )
  const { runId } = await engine.start('charge', null)
  const outcome = await engine.waitForRun(runId, { timeoutMs: 5_000 })
  assert.equal(outcome.status, 'failed')
  if (outcome.status !== 'failed') return
  assert.equal(outcome.error.code, 'E_INVALID_ARGUMENT')
  assert.match(
    outcome.error.message,
    /^ctx\.localStep\("charge"\): unknown option "backoffMs": Cairn's is backoff: \{ delay \}/,
  )
  assert.equal(calls, 0)
  assert.deepEqual(await engine.getSteps(runId), [])
  assert.equal((await engine.getRun(runId))?.status, 'failed')
})

void test("ctx.step: a queue's options are checked in the workflow (bad ones throw, the handler never runs); an unknown queue parks the run", async (t) => {
  const engine = await testEngine(t)
  let handled = 0
  engine.registerStep('ship', () => ++handled)
  engine.register('caught', 1, async (ctx) => {
    const seen: string[] = []
    // A priority or fairness key orders a step within its queue: without one, refused.
    seen.push(await outcomeOf(() => ctx.step('ship', null, { priority: 1 })))
    seen.push(await outcomeOf(() => ctx.step('ship', null, { fairnessKey: 'tenant' })))
    seen.push(await outcomeOf(() => ctx.step('ship', null, { queue: 'q', priority: 'x' } as never)))
    seen.push(await outcomeOf(() => ctx.step('ship', null, { backoff: { delayMs: 1 } } as never)))
    // `transport` is Cairn's now (remote steps): one this engine does not have is refused.
    seen.push(await outcomeOf(() => ctx.step('ship', null, { transport: 'bullmq' })))
    return { seen, after: await ctx.step('ship', null, { retries: 0, timeoutMs: undefined }) }
  })
  const caught = await engine.start('caught', null)
  const done = await engine.waitForRun(caught.runId, { timeoutMs: 5_000 })
  assert.equal(done.status, 'completed')
  if (done.status !== 'completed') return
  const { seen, after } = done.output as { seen: string[]; after: number }
  const withinQueue =
    /^E_INVALID_ARGUMENT: step "ship": priority and fairnessKey order a step within its queue: give \{ queue \}/
  assert.match(seen[0] ?? '', withinQueue)
  assert.match(seen[1] ?? '', withinQueue)
  assert.match(seen[2] ?? '', /^E_INVALID_ARGUMENT: step "ship": queue: priority is an integer/)
  assert.match(
    seen[3] ?? '',
    /^E_INVALID_ARGUMENT: ctx\.step\("ship"\) backoff: unknown option "delayMs"/,
  )
  assert.match(
    seen[4] ?? '',
    /^E_INVALID_ARGUMENT: step "ship": transport "bullmq" is not one of this engine's transports/,
  )
  assert.equal(after, 1, 'only the valid call ran the handler')

  engine.register('unknown-queue', 1, async (ctx) => ctx.step('ship', null, { queue: 'emails' }))
  const { runId } = await engine.start('unknown-queue', null)
  await engine.whenQuiet()
  const run = await engine.getRun(runId)
  assert.equal(run?.status, 'parked')
  assert.equal(run?.parkReason?.code, 'E_QUEUE_NOT_REGISTERED')
  assert.deepEqual(run?.parkReason?.details, { queue: 'emails', seq: 0 })
  assert.equal(handled, 1)
})

void test('defineStep and engine.registerStep: a schema that is none, compensate are refused, and the step is not registered', async (t) => {
  const engine = await testEngine(t)
  const handler = async () => 'ok'
  for (const option of ['input', 'output']) {
    assert.throws(() => engine.registerStep('charge', handler, { [option]: {} } as never), {
      code: 'E_INVALID_ARGUMENT',
      message: new RegExp(`^step "charge": ${option} must be a Standard Schema`),
    })
  }
  assert.throws(
    () => engine.registerStep('charge', handler, { compensate: () => 1 } as never),
    refusal(
      'compensate',
      /Cairn takes compensate on the call: ctx\.step\(ref, input, \{ compensate/,
    ),
  )
  assert.throws(
    () => engine.registerStep('charge', handler, { backoff: { max: '1m' } } as never),
    refusal('max', /^step "charge" backoff: unknown option "max"/),
  )
  // The seed's `backoff: 'exp'` would otherwise spread into its characters.
  assert.throws(() => defineStep('charge', handler, { backoff: 'exp' } as never), {
    code: 'E_INVALID_ARGUMENT',
    message: 'defineStep("charge") backoff: options must be a plain object, got string',
  })
  // Nothing was kept: the name is free, and a step reference with valid options registers.
  engine.registerStep(defineStep('charge', handler, { retries: 1, timeoutMs: undefined }))
})

void test('the other ctx options objects (waits, children, transactions, webhooks) refuse unknown keys in the workflow', async (t) => {
  const engine = await testEngine(t)
  engine.register('child', 1, async () => 'child done')
  engine.register('waits', 1, async (ctx: WorkflowContext) => {
    const hook = await ctx.webhook()
    const calls: Array<[string, () => unknown]> = [
      ['timeout', () => ctx.waitForSignal('go', { timeout: 5 } as never)],
      ['matches', () => ctx.waitForEvent('paid', { matches: {} } as never)],
      ['validator', () => ctx.onUpdate('add', { validator: () => true } as never)],
      ['prio', () => ctx.child('child', null, { prio: 1 } as never)],
      ['runId', () => ctx.startChild('child', null, { runId: 'c' } as never)],
      ['concurrency', () => ctx.all('child', [1], { concurrency: 2 } as never)],
      ['mode', () => ctx.allSettled('child', [1], { mode: 'waitAll' } as never)],
      ['isolation', () => ctx.transaction('t', () => 1, { isolation: 'serializable' } as never)],
      ['timeout', () => hook.wait({ timeout: 5 } as never)],
    ]
    const seen: string[] = []
    for (const [, call] of calls) seen.push(await outcomeOf(call))
    return { seen, expected: calls.map(([key]) => key), child: await ctx.child('child', null) }
  })
  const { runId } = await engine.start('waits', null)
  const outcome = await engine.waitForRun(runId, { timeoutMs: 5_000 })
  assert.equal(outcome.status, 'completed')
  if (outcome.status !== 'completed') return
  const { seen, expected, child } = outcome.output as {
    seen: string[]
    expected: string[]
    child: string
  }
  expected.forEach((key, i) =>
    assert.match(seen[i] ?? '', new RegExp(`^E_INVALID_ARGUMENT: .*unknown option "${key}"`)),
  )
  assert.match(seen[3] ?? '', /ctx\.child\("child"\): unknown option "prio" \(ctx\.child takes/)
  // Refused calls took no position: the run's one child is the valid call's.
  assert.equal(child, 'child done')
  assert.equal((await engine.listRuns({ parentRunId: runId })).runs.length, 1)
})

void test('engine calls refuse unknown options before they act: no signal sent, no run cancelled, copied or started', async (t) => {
  const engine = await testEngine(t)
  engine.register('waiter', 1, async (ctx) => ctx.waitForSignal<string>('go'))
  const { runId } = await engine.start('waiter', null, { runId: 'w-1' })
  await engine.whenQuiet()
  const rejected: Array<[string, () => Promise<unknown>]> = [
    ['terminal', () => engine.waitForRun(runId, { terminal: true, timeoutMs: 1 } as never)],
    ['force', () => engine.cancel(runId, { force: true } as never)],
    ['dedupeId', () => engine.signal({ runId, name: 'go' }, 'now', { dedupeId: 'd' } as never)],
    [
      'token',
      () => engine.signalWithStart('waiter', null, { runId: 'w-2' }, { token: 'go' } as never),
    ],
    ['buffer', () => engine.publishEvent('paid', null, { buffer: true } as never)],
    ['labels', () => engine.continue(runId, { labels: ['x'] } as never)],
    ['wait', () => engine.getEvent(runId, 'stage', { wait: 5 } as never)],
    ['id', () => engine.update(runId, 'add', 1, { id: 'u' } as never)],
    ['version', () => engine.retryWithInput(runId, null, { version: 2 } as never)],
    ['seq', () => engine.fork(runId, { fromSeq: 0, seq: 0 } as never)],
    ['tags', () => engine.listRuns({ tags: ['x'] } as never)],
    ['limit', () => engine.facetRuns({ limit: 5 } as never)],
    ['from', () => engine.getStepsPage(runId, { fromSeq: 0, limit: 5, from: 1 } as never)],
  ]
  for (const [option, call] of rejected) await assert.rejects(call(), refusal(option), option)
  await assert.rejects(
    engine.waitForRun(runId, { terminal: true, timeoutMs: 1 } as never),
    /Cairn's waitForRun always waits until the run ends/,
  )
  await assert.rejects(
    engine.signalWithStart('waiter', null, { runId: 'w-2' }, { token: 'go' } as never),
    /Cairn's signals are addressed to the run: give the signal's name/,
  )
  // The run still waits for its signal, and it is the only run.
  await engine.whenQuiet()
  assert.equal((await engine.getRun(runId))?.status, 'waiting')
  assert.deepEqual(
    (await engine.listRuns()).runs.map((r) => r.id),
    [runId],
  )
  await engine.signal({ runId, name: 'go' }, 'now', { signalId: undefined })
  assert.deepEqual(await engine.waitForRun(runId, { timeoutMs: 5_000 }), {
    runId,
    status: 'completed',
    output: 'now',
  })
})

void test('new Engine refuses an unknown option by name', () => {
  assert.throws(
    () => new Engine({ store: new MemoryStore(), concurency: 5 } as never),
    refusal(
      'concurency',
      /^new Engine: unknown option "concurency" \(new Engine takes store, codec/,
    ),
  )
})

void test('createCodec and instrumentCairn refuse an unknown option: a misspelt transform would store payloads in clear', () => {
  const seal = { encode: (text: string) => text, decode: (text: string) => text }
  assert.throws(
    () => createCodec({ transfrom: seal } as never),
    refusal(
      'transfrom',
      /^createCodec: unknown option "transfrom" \(createCodec takes maxBytes, maxDepth, transform\)/,
    ),
  )
  assert.throws(() => instrumentCairn({ provider: {} } as never), refusal('provider'))
  // Refused before installing anything: a correct call instruments, once.
  instrumentCairn().disable()
})

void test('requires: capability names, only with a transport — refused at registration and per call', async (t) => {
  const engine = await testEngine(t)
  const handler = async () => 'ok'
  for (const [requires, message] of [
    [['gpu'], /requires needs a transport/],
    ['gpu', /requires must be an array of capability names/],
    [['has space'], /"has space" is not a capability name/],
    [['gpu', 'gpu'], /"gpu" is listed twice/],
    [[42], /42 is not a capability name/],
    [Array.from({ length: 101 }, (_, i) => `c${i}`), /at most 100 capabilities/],
  ] as const)
    assert.throws(
      () => engine.registerStep('render', handler, { requires } as never),
      (error: { code?: string; message?: string }) =>
        error.code === 'E_INVALID_ARGUMENT' && message.test(error.message ?? ''),
    )
  engine.registerStep('ship', handler)
  engine.register('needs', 1, async (ctx) =>
    outcomeOf(() => ctx.step('ship', null, { requires: ['gpu'] })),
  )
  const { runId } = await engine.start('needs', null)
  const done = await engine.waitForRun(runId, { timeoutMs: 5_000 })
  assert.equal(done.status, 'completed')
  assert.match(
    String(done.status === 'completed' && done.output),
    /^E_INVALID_ARGUMENT: step "ship": requires needs a transport/,
  )
})
