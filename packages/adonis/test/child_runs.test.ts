/**
 * `Workflow.start` / `Workflow.dispatch` called from a workflow body start child runs (recorded
 * at the body's positions, linked to the parent); called from a step, they start an independent
 * run, as from a controller.
 */
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { test } from 'node:test'
import { defineConfig, stores } from '@cairn/adonis'
import type { Engine, WorkflowContext } from '@cairn/core'
import { createTestEngine } from '@cairn/core/testing'
import GreetWorkflow from './fixtures/app/app/workflows/greet_workflow.ts'
import WelcomeWorkflow from './fixtures/app/app/workflows/welcome_workflow.ts'
import { startApp, tempDir } from './helpers.ts'

void test('start and dispatch in a workflow body are child runs; in a step, an independent run', async (t) => {
  const dir = await tempDir(t)
  const app = await startApp(
    t,
    defineConfig({
      store: 'sqlite',
      stores: { sqlite: stores.sqlite({ path: join(dir, 'd.sqlite') }) },
      drive: true,
    }),
  )
  const engine: Engine = await app.container.make('durable.engine')
  const output = await WelcomeWorkflow.start(
    { name: 'Ada' },
    { runId: 'welcome-1', timeoutMs: 60_000 },
  )
  assert.deepEqual(output, {
    greeting: 'Hello, Ada',
    later: 'welcome-1/later',
    independent: 'welcome-1/from-step',
  })

  const kinds = (await engine.getSteps('welcome-1')).map((step) => `${step.kind}:${step.name}`)
  // The child start waited for is a recorded position (the dispatched one records none until
  // its outcome arrives); the step that dispatched an independent run is a local step.
  assert.ok(kinds.includes('child:greet'), kinds.join(', '))
  assert.ok(kinds.includes('local:notify'), kinds.join(', '))

  const { runs } = await engine.listRuns({ workflow: 'greet', limit: 10 })
  const parentOf = new Map(runs.map((run) => [run.id, run.parentRunId]))
  assert.equal(parentOf.size, 3)
  assert.equal(parentOf.get('welcome-1/later'), 'welcome-1')
  assert.equal(parentOf.get('welcome-1/from-step'), null)
  const waited = runs.find(
    (run) => run.id !== 'welcome-1/later' && run.id !== 'welcome-1/from-step',
  )
  assert.equal(waited?.parentRunId, 'welcome-1', 'the child run start waited for')
})

void test('tags given to a child start are refused, not dropped', async () => {
  const t = await createTestEngine()
  // Registered so that, were the tags dropped, the parent would complete (a visible failure).
  t.engine.register('greet', 1, async () => 'hi')
  t.engine.register('parent', 1, async (_ctx: WorkflowContext) => {
    await GreetWorkflow.dispatch({ name: 'Ada' }, { tags: ['vip'] })
  })
  const { runId } = await t.engine.start('parent', null)
  const outcome = await t.engine.waitForRun(runId)
  assert.equal(outcome.status, 'failed')
  assert.equal((outcome as { error: { code?: string } }).error.code, 'E_INVALID_ARGUMENT')
  await t.close()
})

void test('a child start carries the priority it is given, else its parent’s', async () => {
  const t = await createTestEngine()
  t.engine.register('greet', 1, async () => 'hi')
  t.engine.register('parent', 1, async (_ctx: WorkflowContext) => {
    await GreetWorkflow.start({ name: 'Ada' }, { runId: 'inherits' })
    await GreetWorkflow.start({ name: 'Bo' }, { runId: 'given', priority: -5 })
    await GreetWorkflow.dispatch({ name: 'Cy' }, { runId: 'dispatched', priority: 9 })
    return 'done'
  })
  const { runId } = await t.engine.start('parent', null, { priority: 30 })
  assert.equal((await t.engine.waitForRun(runId)).status, 'completed')
  await t.runUntilIdle()
  const priorities = await Promise.all(
    ['inherits', 'given', 'dispatched'].map(async (id) => (await t.engine.getRun(id))?.priority),
  )
  assert.deepEqual(priorities, [30, -5, 9])
  await t.close()
})
