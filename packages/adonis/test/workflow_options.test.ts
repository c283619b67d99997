/**
 * Options a workflow class declares or passes that Cairn does not take are refused, never
 * dropped: a `static workflow` key fails boot naming the key and the file (an
 * @adonis-agora/durable key says it is not in Cairn yet), and `dispatch` / `start` inside a
 * workflow refuse a start option a child run cannot honour.
 */
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { test } from 'node:test'
import { BaseWorkflow, defineConfig, stores, type WorkflowDefinition } from '@cairn/adonis'
import { InvalidArgumentError, type Engine, type WorkflowContext } from '@cairn/core'
import { createTestEngine } from '@cairn/core/testing'
import GreetWorkflow from './fixtures/app/app/workflows/greet_workflow.ts'
import { createApp, startApp, tempDir } from './helpers.ts'

const SEED_OPTIONS_APP_ROOT = new URL('./fixtures/seed_options_app/', import.meta.url)

void test('a static workflow declaring validateInput fails boot, naming the file and inputSchema', async (t) => {
  const dir = await tempDir(t)
  const config = defineConfig({
    store: 'sqlite',
    stores: { sqlite: stores.sqlite({ path: join(dir, 'd.sqlite') }) },
  })
  const app = await createApp(config, { root: SEED_OPTIONS_APP_ROOT })
  t.after(() => app.terminate())
  await assert.rejects(app.boot(), (error: Error) => {
    assert.ok(InvalidArgumentError.is(error))
    assert.match(
      error.message,
      /^workflow "digest": unknown option "validateInput": Cairn checks the input at start with inputSchema, a Standard Schema \(docs\/migrating-from-adonis-agora-durable\.md\)/,
    )
    assert.match(error.message, /\(in app\/workflows\/digest_workflow\.ts\)$/)
    assert.deepEqual(error.details, {
      workflow: 'digest',
      call: 'engine.register',
      option: 'validateInput',
      notYet: false,
      use: 'inputSchema',
      file: 'app/workflows/digest_workflow.ts',
    })
    return true
  })
})

void test('dispatch and start inside a workflow refuse a start option a child run does not take', async (t) => {
  const harness = await createTestEngine()
  t.after(() => harness.close())
  // Registered so that, were the option dropped, the parent would complete (a visible failure).
  harness.engine.register('greet', 1, async () => ({ greeting: 'hi' }))
  harness.engine.register('parent', 1, async (_ctx: WorkflowContext) => {
    const seen: string[] = []
    for (const call of [
      () => GreetWorkflow.dispatch({ name: 'Ada' }, { queue: 'carrier' } as never),
      () => GreetWorkflow.start({ name: 'Ada' }, { namespace: 'eu' } as never),
    ]) {
      try {
        await call()
        seen.push('ok')
      } catch (error) {
        seen.push(`${(error as { code?: string }).code}: ${(error as Error).message}`)
      }
    }
    return seen
  })
  const { runId } = await harness.engine.start('parent', null)
  const outcome = await harness.engine.waitForRun(runId, { timeoutMs: 5_000 })
  assert.deepEqual(outcome, {
    runId,
    status: 'completed',
    output: [
      'E_INVALID_ARGUMENT: a workflow started inside a workflow is a child run: unknown option "queue" (a child run takes runId, version and priority)',
      'E_INVALID_ARGUMENT: a workflow started inside a workflow is a child run: unknown option "namespace" (a child run takes runId, version and priority)',
    ],
  })
  assert.deepEqual((await harness.engine.listRuns({ parentRunId: runId })).runs, [])
})

void test('a static workflow written with `satisfies WorkflowDefinition` refuses a seed key at compile time', () => {
  // Compile-time only: tsc fails if the error below disappears. Boot would refuse it too.
  class Digest extends BaseWorkflow<null, null> {
    // @ts-expect-error -- validateInput is not a Cairn workflow option
    static workflow = { name: 'digest', version: 1, validateInput: {} } satisfies WorkflowDefinition

    override async run() {
      return null
    }
  }
  assert.equal(Digest.workflow.name, 'digest')
})

void test("a class's deadLetter method runs as <name>.dlq for its failed runs; beside deadLetterWorkflow it fails boot", async (t) => {
  const dir = await tempDir(t)
  const config = (file: string) =>
    defineConfig({
      store: 'sqlite',
      stores: { sqlite: stores.sqlite({ path: join(dir, file) }) },
      drive: true,
    })
  const app = await startApp(t, config('ok.sqlite'), {
    root: new URL('./fixtures/dead_letter_app/', import.meta.url),
  })
  const engine = (await app.container.make('durable.engine')) as Engine
  const { runId } = await engine.start('charge', { amount: 42 })
  assert.equal((await engine.waitForRun(runId, { timeoutMs: 5_000 })).status, 'failed')
  const letter = await engine.waitForRun(`dlq:${runId}`, { timeoutMs: 5_000 })
  assert.deepEqual(letter, {
    runId: `dlq:${runId}`,
    status: 'completed',
    output: `refunded 42 of ${runId}`,
  })
  assert.equal((await engine.getRun(`dlq:${runId}`))?.workflow, 'charge.dlq')
  const both = await createApp(config('both.sqlite'), {
    root: new URL('./fixtures/dead_letter_both_app/', import.meta.url),
  })
  t.after(() => both.terminate())
  await assert.rejects(both.boot(), (error: Error) => {
    assert.ok(InvalidArgumentError.is(error))
    assert.match(
      error.message,
      /declares both a deadLetter method and static workflow\.deadLetterWorkflow/,
    )
    return true
  })
})

void test('schedules from config/durable.ts and a static schedule fire on a driving app', async (t) => {
  const dir = await tempDir(t)
  const app = await startApp(
    t,
    defineConfig({
      store: 'sqlite',
      stores: { sqlite: stores.sqlite({ path: join(dir, 's.sqlite') }) },
      drive: true,
      schedules: [
        { id: 'config-ping', workflow: 'ping', everyMs: 1_000, input: { from: 'config' } },
      ],
    }),
    { root: new URL('./fixtures/schedule_app/', import.meta.url) },
  )
  const engine = (await app.container.make('durable.engine')) as Engine
  assert.deepEqual(
    (await engine.listSchedules()).map((s) => s.id),
    ['config-ping', 'ping'],
  )
  const deadline = Date.now() + 10_000
  const outputs = async () => {
    const { runs } = await engine.listRuns({ workflow: 'ping', status: 'completed', limit: 100 })
    return new Set(runs.map((run) => run.output))
  }
  while ((await outputs()).size < 2 && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 100))
  assert.deepEqual([...(await outputs())].sort(), ['pong from class', 'pong from config'])
  assert.throws(() => defineConfig({ store: 'sqlite', stores: {}, schedules: {} } as never), {
    code: 'E_INVALID_ARGUMENT',
  })
})

void test('retention from config/durable.ts reaches the engine and sweeps', async (t) => {
  const dir = await tempDir(t)
  const app = await startApp(
    t,
    defineConfig({
      store: 'sqlite',
      stores: { sqlite: stores.sqlite({ path: join(dir, 'r.sqlite') }) },
      drive: true,
      retention: { policies: [{ workflow: 'greet', statuses: ['completed'], maxCount: 1 }] },
    }),
  )
  const engine = (await app.container.make('durable.engine')) as Engine
  for (const runId of ['p-1', 'p-2', 'p-3']) {
    await engine.start('greet', { name: runId }, { runId })
    await engine.waitForRun(runId, { timeoutMs: 10_000 })
  }
  assert.deepEqual(await engine.sweepRetention(), [
    { policy: 'greet:completed', roots: 2, runs: 2, refused: 0 },
  ])
  const { runs } = await engine.listRuns({ workflow: 'greet', limit: 10 })
  assert.deepEqual(
    runs.map((run) => run.id),
    ['p-3'],
  )
})
