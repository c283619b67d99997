import assert from 'node:assert/strict'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { InvalidArgumentError, type WorkflowContext } from '@cairn/core'
import { defineConfig, stores } from '@cairn/adonis'
import CheckoutWorkflow from './fixtures/app/app/workflows/checkout_workflow.ts'
import AddTaxStep from './fixtures/app/app/steps/add_tax_step.ts'
import { createApp, startApp, tempDir } from './helpers.ts'

const DUPLICATE_STEPS_APP_ROOT = new URL('./fixtures/duplicate_steps_app/', import.meta.url)
const BAD_STEP_APP_ROOT = new URL('./fixtures/bad_step_app/', import.meta.url)

function sqliteConfig(dir: string) {
  return defineConfig({
    store: 'sqlite',
    stores: { sqlite: stores.sqlite({ path: join(dir, 'durable.sqlite') }) },
    drive: true,
  })
}

void describe('@cairn/adonis steps', () => {
  void test('class and function steps in app/steps are registered; a workflow calls both, typed', async (t) => {
    const dir = await tempDir(t)
    const app = await startApp(t, sqliteConfig(dir))
    const engine = await app.container.make('durable.engine')
    const before = AddTaxStep.instances

    const { runId } = await CheckoutWorkflow.dispatch({ cents: 1000 }, { runId: 'checkout-1' })
    const outcome = await engine.waitForRun(runId, { timeoutMs: 30_000 })
    assert.deepEqual(outcome, {
      runId,
      status: 'completed',
      output: { receipt: 'Total: 12.00', key: 'checkout-1/0' },
    })
    const steps = await engine.getSteps(runId)
    assert.deepEqual(
      steps.map((s) => [s.name, s.kind, s.status]),
      [
        ['add-tax', 'step', 'completed'],
        ['billing.format-receipt', 'step', 'completed'],
      ],
    )
    // A second run builds a second instance: one per execution, through the container.
    const second: { receipt: string } = await CheckoutWorkflow.start({ cents: 500 })
    assert.equal(second.receipt, 'Total: 6.00')
    assert.equal(AddTaxStep.instances - before, 2)
  })

  void test('two modules declaring the same step name fail boot, naming both files', async (t) => {
    const dir = await tempDir(t)
    const app = await createApp(sqliteConfig(dir), { root: DUPLICATE_STEPS_APP_ROOT })
    t.after(() => app.terminate())
    await assert.rejects(app.boot(), (error: Error) => {
      assert.ok(InvalidArgumentError.is(error))
      assert.match(error.message, /Step "charge" is declared twice/)
      assert.match(error.message, /app\/steps\/charge_step\.ts/)
      assert.match(error.message, /app\/steps\/legacy\/old_charge\.ts/)
      return true
    })
  })

  void test('a step declaring an unknown option fails boot, naming the option and the file', async (t) => {
    const dir = await tempDir(t)
    const app = await createApp(sqliteConfig(dir), { root: BAD_STEP_APP_ROOT })
    t.after(() => app.terminate())
    await assert.rejects(app.boot(), (error: Error) => {
      assert.ok(InvalidArgumentError.is(error))
      assert.match(error.message, /step "refund": unknown option "retry"/)
      assert.match(error.message, /\(in app\/steps\/refund_step\.ts\)/)
      return true
    })
  })

  void test('invoke is typed by run: a wrong input does not compile', () => {
    // Compile-time only (tsc fails if the error below disappears); never called.
    const typed = (ctx: WorkflowContext) => {
      // @ts-expect-error -- `cents` must be a number
      void AddTaxStep.invoke(ctx, { cents: '12' })
      const cents: Promise<{ cents: number; key: string }> = AddTaxStep.invoke(ctx, { cents: 12 })
      return cents
    }
    assert.equal(typeof typed, 'function')
  })

  void test('stepsPath must be a non-empty path', () => {
    assert.throws(
      () =>
        defineConfig({
          store: 's',
          stores: { s: stores.sqlite({ path: ':memory:' }) },
          stepsPath: '',
        }),
      /stepsPath/,
    )
  })
})
