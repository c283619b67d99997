/**
 * `ctx.transaction` on the Knex store, on each dialect: the step's insert and its checkpoint
 * commit together, so the insert happens exactly once — across replay, a stale lease holder,
 * a failed attempt and a crash between the step's body and its commit (child process, SIGKILL).
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { startChild } from './helpers/child_process.ts'
import { mysqlTest } from './helpers/mysql.ts'
import { pgTest } from './helpers/postgres.ts'
import type { Register } from './helpers/services.ts'
import {
  bumpEpoch,
  eventually,
  freshApp,
  items,
  newEngine,
  openKnex,
  openStore,
  registerInsertItem,
  type AppSpec,
  type Dialect,
  type StepHooks,
} from './helpers/transactional_app.ts'
import type { Engine } from '@cairn/core'
import type { Knex } from 'knex'

const sqliteTest: Register = (name, body) => void test(name, body)

interface App {
  spec: AppSpec
  knex: Knex
  calls: { count: number }
  /** A started engine on a new store over the app's Knex, running `insert-item`. */
  engine(hooks?: StepHooks, options?: Parameters<typeof newEngine>[1]): Promise<Engine>
}

async function withApp(dialect: Dialect, body: (app: App) => Promise<void>): Promise<void> {
  const { spec, drop } = await freshApp(dialect)
  const knex = openKnex(spec)
  const engines: Engine[] = []
  const calls = { count: 0 }
  const app: App = {
    spec,
    knex,
    calls,
    async engine(hooks, options) {
      const engine = newEngine(await openStore(knex, spec), options)
      registerInsertItem(engine, spec, calls, hooks)
      engines.push(engine)
      await engine.startDriving()
      return engine
    },
  }
  try {
    await body(app)
  } finally {
    for (const engine of engines) await engine.close(50).catch(() => {})
    await knex.destroy()
    await drop()
  }
}

const DIALECTS: Array<[Dialect, Register]> = [
  ['sqlite', sqliteTest],
  ['postgres', pgTest],
  ['mysql', mysqlTest],
]

for (const [dialect, register] of DIALECTS) {
  register(
    `[${dialect}] replay after the checkpoint returns the result; the insert is not made again`,
    async () => {
      await withApp(dialect, async (app) => {
        const first = await app.engine()
        const { runId } = await first.start('insert-item', { note: 'a', waitForSignal: true })
        await eventually(
          async () => (await first.getRun(runId))?.status === 'waiting',
          'run suspended',
        )
        await first.close()
        // A new engine knows nothing: it can only resume by replaying the recorded step.
        const second = await app.engine()
        await second.signal({ runId, name: 'go' })
        const outcome = await second.waitForRun(runId, { timeoutMs: 20_000 })
        assert.deepEqual(outcome, { runId, status: 'completed', output: { call: 1, attempt: 1 } })
        assert.equal(app.calls.count, 1)
        assert.deepEqual(await items(app.knex, app.spec), [{ run_id: runId, note: 'a', call: 1 }])
      })
    },
  )

  register(
    `[${dialect}] a stale holder's transactional step rolls back: its insert never commits`,
    async () => {
      await withApp(dialect, async (app) => {
        // The first call finds its lease taken over (the epoch moved) while it runs; the run
        // is recovered when that lease expires, and the step runs again under the new one.
        const hooks: StepHooks = {
          beforeInsert: (call, runId) =>
            call === 1 ? bumpEpoch(app.knex, app.spec, runId) : undefined,
        }
        const engine = await app.engine(hooks, { leaseMs: 1_000, holdTimersUpToMs: 100 })
        const { runId } = await engine.start('insert-item', { note: 'b' })
        const outcome = await engine.waitForRun(runId, { timeoutMs: 30_000 })
        assert.equal(outcome.status, 'completed')
        assert.deepEqual(await items(app.knex, app.spec), [{ run_id: runId, note: 'b', call: 2 }])
        assert.equal(app.calls.count, 2, 'the fenced call, then the one under the new lease')
      })
    },
  )

  register(
    `[${dialect}] a throwing attempt rolls back and is retried: the insert is there once`,
    async () => {
      await withApp(dialect, async (app) => {
        const hooks: StepHooks = {
          afterInsert: (call) => {
            if (call === 1) throw new Error('payment gateway said no')
          },
        }
        const engine = await app.engine(hooks)
        const { runId } = await engine.start('insert-item', { note: 'c' })
        const outcome = await engine.waitForRun(runId, { timeoutMs: 20_000 })
        assert.deepEqual(outcome, { runId, status: 'completed', output: { call: 2, attempt: 2 } })
        assert.deepEqual(await items(app.knex, app.spec), [{ run_id: runId, note: 'c', call: 2 }])
      })
    },
  )

  register(
    `[${dialect}] a crash between the step's body and its commit leaves no row; the step runs again once`,
    async () => {
      await withApp(dialect, async (app) => {
        const runId = `crash-${dialect}`
        // The child inserts, writes the checkpoint, and dies (SIGKILL) before COMMIT (P5).
        const child = startChild('transactional_crash.ts', [JSON.stringify(app.spec), runId])
        const exit = await child.exited
        assert.equal(exit.signal, 'SIGKILL', `the child did not die at P5: ${child.stderr()}`)
        assert.deepEqual(
          await items(app.knex, app.spec),
          [],
          'the dead transaction committed nothing',
        )
        // Same instance id: the restarted engine takes its run back at once.
        const engine = await app.engine({}, { instanceId: 'tx-crashy' })
        const outcome = await engine.waitForRun(runId, { timeoutMs: 20_000 })
        assert.equal(outcome.status, 'completed')
        assert.equal(app.calls.count, 1)
        assert.deepEqual(await items(app.knex, app.spec), [{ run_id: runId, note: 'd', call: 1 }])
      })
    },
  )
}
