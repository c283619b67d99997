import assert from 'node:assert/strict'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { Engine, InvalidArgumentError } from '@cairn/core'
import { SqliteStore } from '@cairn/sql/sqlite'
import { defineConfig, stores, validateConfig } from '@cairn/adonis'
import GreetWorkflow from './fixtures/app/app/workflows/greet_workflow.ts'
import InvoiceWorkflow from './fixtures/app/app/workflows/billing/invoice_workflow.ts'
import { stepGate } from './fixtures/app/step_gate.ts'
import { createApp, DUPLICATE_APP_ROOT, startApp, tempDir } from './helpers.ts'

void describe('@cairn/adonis provider', () => {
  void test('binds the engine and registers discovered workflows; a dispatched run completes', async (t) => {
    const dir = await tempDir(t)
    const app = await startApp(
      t,
      defineConfig({
        store: 'sqlite',
        stores: { sqlite: stores.sqlite({ path: join(dir, 'durable.sqlite') }) },
        drive: true,
      }),
    )
    const engine = await app.container.make('durable.engine')
    assert.ok(engine instanceof Engine)
    assert.equal(engine.isDriving, true)

    const { runId, existing } = await GreetWorkflow.dispatch(
      { name: 'Ada' },
      { runId: 'greet-1', tags: ['vip'] },
    )
    assert.equal(runId, 'greet-1')
    assert.equal(existing, false)
    const outcome = await engine.waitForRun(runId)
    assert.deepEqual(outcome, { runId, status: 'completed', output: { greeting: 'Hello, Ada' } })

    const run = await engine.getRun(runId)
    assert.equal(run?.workflow, 'greet')
    assert.equal(run?.version, '1')
    assert.deepEqual(run?.tags, ['vip'], 'tags pass through to engine.start')
  })

  void test('start waits for the typed result, and rejects with the error a run failed with', async (t) => {
    const dir = await tempDir(t)
    await startApp(
      t,
      defineConfig({
        store: 'sqlite',
        stores: { sqlite: stores.sqlite({ path: join(dir, 'durable.sqlite') }) },
        drive: true,
      }),
    )
    // Discovered in a subdirectory (app/workflows/billing); input and output types come from run().
    const result: { invoiceId: string; total: number } = await InvoiceWorkflow.start({
      id: 'inv-1',
      amount: 21,
    })
    assert.deepEqual(result, { invoiceId: 'inv-1', total: 42 })

    await assert.rejects(InvoiceWorkflow.start({ id: 'inv-2', amount: -1 }), (error: Error) => {
      assert.equal((error as { code?: string }).code, 'E_FATAL')
      assert.match(error.message, /inv-2 has a negative amount/)
      return true
    })
  })

  void test('does not drive by default, nor from console commands even when drive is true', async (t) => {
    const dir = await tempDir(t)
    const path = join(dir, 'durable.sqlite')
    const web = await startApp(
      t,
      defineConfig({ store: 'sqlite', stores: { sqlite: stores.sqlite({ path }) } }),
    )
    const webEngine = await web.container.make('durable.engine')
    assert.equal(webEngine.isDriving, false)
    const { runId } = await GreetWorkflow.dispatch({ name: 'Grace' })
    assert.equal((await webEngine.getRun(runId))?.status, 'pending')
    await web.terminate()

    const console = await startApp(
      t,
      defineConfig({ store: 'sqlite', stores: { sqlite: stores.sqlite({ path }) }, drive: true }),
      { environment: 'console' },
    )
    const consoleEngine = await console.container.make('durable.engine')
    assert.equal(consoleEngine.isDriving, false)
    assert.equal((await consoleEngine.getRun(runId))?.status, 'pending')
  })

  void test('shutdown drains: an executing run finishes before the app terminates', async (t) => {
    const dir = await tempDir(t)
    const path = join(dir, 'durable.sqlite')
    const app = await startApp(
      t,
      defineConfig({
        store: 'sqlite',
        stores: { sqlite: stores.sqlite({ path }) },
        drive: true,
        drainTimeoutMs: 600_000,
      }),
    )
    const engine = await app.container.make('durable.engine')
    stepGate.hold('inv-drain')
    const { runId } = await InvoiceWorkflow.dispatch({ id: 'inv-drain', amount: 5 })
    await stepGate.entered('inv-drain')

    const terminated = app.terminate()
    // Release the step only once the engine has begun draining (it stops driving at once).
    while (engine.isDriving) await new Promise((resolve) => setImmediate(resolve))
    stepGate.release('inv-drain')
    await terminated

    const store = new SqliteStore({ path })
    const reader = new Engine({ store })
    t.after(() => reader.close())
    const run = await reader.getRun(runId)
    assert.equal(run?.status, 'completed')
    assert.deepEqual(run?.output, { invoiceId: 'inv-drain', total: 10 })
  })

  void test('shutdown drains with the configured timeout, then hands unfinished runs back', async (t) => {
    const dir = await tempDir(t)
    const path = join(dir, 'durable.sqlite')
    const app = await startApp(
      t,
      defineConfig({
        store: 'sqlite',
        stores: { sqlite: stores.sqlite({ path }) },
        drive: true,
        drainTimeoutMs: 0,
      }),
    )
    stepGate.hold('inv-handback')
    t.after(() => stepGate.release('inv-handback'))
    const { runId } = await InvoiceWorkflow.dispatch({ id: 'inv-handback', amount: 5 })
    await stepGate.entered('inv-handback')
    await app.terminate()

    const reader = new Engine({ store: new SqliteStore({ path }) })
    t.after(() => reader.close())
    const run = await reader.getRun(runId)
    assert.equal(run?.status, 'pending') // handed back: claimable now by another engine
  })
})

void describe('@cairn/adonis config', () => {
  void test('defineConfig rejects an invalid config, naming the field', () => {
    const sqlite = stores.sqlite({ path: 'unused.sqlite' })
    assert.throws(
      () => defineConfig({ store: 'pg' as 'sqlite', stores: { sqlite } }),
      (error: Error) =>
        InvalidArgumentError.is(error) &&
        /Invalid config\/durable\.ts: "store" must name one of stores \(sqlite\), got "pg"/.test(
          error.message,
        ),
    )
    assert.throws(
      () => defineConfig({ store: 'sqlite', stores: { sqlite }, leaseMs: -5 }),
      /"leaseMs" leaseMs must be an integer from 1 to 2147483647, got -5/,
    )
    assert.throws(
      () => validateConfig({ store: 'sqlite', stores: { sqlite: { path: 'x' } } }),
      /"stores\.sqlite" must be stores\.sqlite\(…\) or stores\.lucid\(…\)/,
    )
    assert.throws(
      () => validateConfig({ store: 'sqlite', stores: { sqlite }, lease: 5 }),
      /"lease" is not a known option/,
    )
  })

  void test('an invalid config fails boot, naming the field', async () => {
    const app = await createApp({
      store: 'sqlite',
      stores: { sqlite: stores.sqlite({ path: 'unused.sqlite' }) },
      drainTimeoutMs: 'soon',
    })
    await assert.rejects(
      app.boot(),
      /Invalid config\/durable\.ts: "drainTimeoutMs" drainTimeoutMs must be an integer from 0 to 8640000000000000, got "soon"/,
    )
  })

  void test("a store's or the engine's option error fails boot as a config error", async (t) => {
    const dir = await tempDir(t)
    const badPath = await createApp({
      store: 'main',
      stores: { main: stores.sqlite({ path: '' }) },
    })
    await assert.rejects(
      badPath.boot(),
      /Invalid config\/durable\.ts: "stores\.main" sqlite store: path must be a non-empty string/,
    )
    const badId = await createApp(
      defineConfig({
        store: 'sqlite',
        stores: { sqlite: stores.sqlite({ path: join(dir, 'd.sqlite') }) },
        instanceId: ' worker-1',
      }),
    )
    await assert.rejects(badId.boot(), (error: Error) => {
      assert.ok(InvalidArgumentError.is(error))
      assert.match(error.message, /^Invalid config\/durable\.ts: .*instanceId/)
      return true
    })
  })

  void test('a missing config fails boot', async () => {
    const app = await createApp(undefined)
    await assert.rejects(
      app.boot(),
      /Invalid config\/durable\.ts: "\(root\)" must export an object/,
    )
  })
})

void describe('@cairn/adonis discovery', () => {
  void test('two workflow files declaring the same name and version fail boot, naming both', async (t) => {
    const dir = await tempDir(t)
    const app = await createApp(
      defineConfig({
        store: 'sqlite',
        stores: { sqlite: stores.sqlite({ path: join(dir, 'd.sqlite') }) },
      }),
      { root: DUPLICATE_APP_ROOT },
    )
    t.after(() => app.terminate())
    await assert.rejects(app.boot(), (error: Error) => {
      assert.ok(InvalidArgumentError.is(error))
      assert.match(error.message, /Workflow "ship" version 1 is declared twice/)
      assert.match(error.message, /app\/workflows\/legacy\/old_ship_workflow\.ts/)
      assert.match(error.message, /app\/workflows\/ship_workflow\.ts/)
      return true
    })
  })
})
