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
  itemsTable,
  newEngine,
  openKnex,
  openStore,
  registerInsertItem,
  type AppSpec,
  type Dialect,
  type StepHooks,
} from './helpers/transactional_app.ts'
import type { Engine } from '@cairn/core'
import type { CheckpointRecord } from '@cairn/core/contracts'
import type { KnexStoreOptions } from '@cairn/sql/knex'
import type { Knex } from 'knex'

const sqliteTest: Register = (name, body) => void test(name, body)

interface App {
  spec: AppSpec
  knex: Knex
  calls: { count: number }
  /** A started engine on a new store over the app's Knex, running `insert-item`. */
  engine(
    hooks?: StepHooks,
    options?: Parameters<typeof newEngine>[1],
    store?: KnexStoreOptions,
  ): Promise<Engine>
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
    async engine(hooks, options, store) {
      const engine = newEngine(await openStore(knex, spec, store), options)
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
    `[${dialect}] the transactional checkpoint is stored field for field, and a conflict returns it`,
    async () => {
      await withApp(dialect, async (app) => {
        const store = await openStore(app.knex, app.spec)
        try {
          const run = { id: 'tx-run', workflow: 'w', version: '1', input: '{}', createdAt: 1_000 }
          const claim = { owner: 'engine', leaseMs: 60_000 }
          await store.applyBatch([{ type: 'createRun', run, claim }], 1_000)
          const fence = { runId: run.id, epoch: 1 }
          // Every field differs from its default, `input` included (stores take any kind's).
          const checkpoint: CheckpointRecord = {
            runId: run.id,
            seq: 0,
            name: 'pay',
            kind: 'transaction',
            status: 'completed',
            attempts: 2,
            order: 1,
            input: '"in"',
            output: '"out"',
            error: null,
            wakeAt: 1_500,
            startedAt: 1_100,
            updatedAt: 1_200,
            worker: null,
          }
          const logs = (message: string) => ({
            runId: run.id,
            seq: checkpoint.seq,
            execution: 'e1a2',
            name: checkpoint.name,
            entries: [{ i: 0, at: 1_150, level: 'info' as const, attempt: 2, message }],
            maxEntries: 10,
          })
          const save = (message: string) =>
            store.runTransactionalStep(fence, async () => ({ checkpoint, logs: logs(message) }))
          assert.deepEqual(await save('first'), { status: 'applied' })
          assert.deepEqual(await store.loadCheckpoints(run.id), [checkpoint])
          assert.deepEqual(await save('again'), { status: 'conflict', existing: checkpoint })
          const [record] = await store.loadStepLogs(run.id, { fromSeq: 0, limit: 10 })
          assert.deepEqual(
            record?.entries.map((entry) => entry.message),
            ['first'],
            'the lines commit with the checkpoint; a conflicting save rolls its own back',
          )
          assert.equal(record?.updatedAt, checkpoint.updatedAt)
        } finally {
          await store.close()
        }
      })
    },
  )

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

for (const [dialect, register] of DIALECTS) {
  register(
    `[${dialect}] a COMMIT reported lost that did land: the step's result is the recorded one, and its function never runs again`,
    async () => {
      await withApp(dialect, async (app) => {
        let commits = 0
        // The first COMMIT succeeds but the caller hears a failure (a connection lost during
        // COMMIT: outcome unknown), so the step is tried again.
        const transactions = {
          async begin() {
            const trx = await app.knex.transaction()
            const commit = async () => {
              await trx.commit()
              if (++commits === 1) throw new Error('connection lost during COMMIT')
            }
            return { handle: trx, knexTransaction: trx, commit, rollback: () => trx.rollback() }
          },
        }
        const engine = await app.engine({}, {}, { transactions })
        const { runId } = await engine.start('insert-item', { note: 'e' })
        const outcome = await engine.waitForRun(runId, { timeoutMs: 20_000 })
        // The failed attempt's retry record meets the committed result: that is delivered, and
        // no second attempt runs the function again (its effects outside the database would).
        assert.deepEqual(outcome, { runId, status: 'completed', output: { call: 1, attempt: 1 } })
        assert.deepEqual(await items(app.knex, app.spec), [{ run_id: runId, note: 'e', call: 1 }])
        assert.equal(app.calls.count, 1, 'the function ran once')
        assert.equal(commits, 1)
        const [step] = await engine.getSteps(runId)
        assert.deepEqual([step?.status, step?.attempts], ['completed', 1])
      })
    },
  )
}

/** The recorded outcomes of `names`, in delivery order (what replay follows). */
async function deliveryOrder(app: App, names: string[]): Promise<string[]> {
  const table =
    app.spec.dialect === 'sqlite' ? 'cairn_checkpoints' : `${app.spec.place}.cairn_checkpoints`
  const rows = await app.knex(table).whereIn('name', names).select('name', 'delivery_order')
  return rows
    .sort(
      (a: { delivery_order: unknown }, b: { delivery_order: unknown }) =>
        Number(a.delivery_order) - Number(b.delivery_order),
    )
    .map((row: { name: string }) => row.name)
}

/** Lets every queued callback and I/O completion of the moment run (no timing involved). */
async function macrotasks(count: number): Promise<void> {
  for (let i = 0; i < count; i++) await new Promise((resolve) => setImmediate(resolve))
}

for (const [dialect, register] of DIALECTS) {
  register(
    `[${dialect}] a transaction holding the connection while the store's batches wait for it: no deadlock, outcomes in order, replay agrees`,
    async () => {
      await withApp(dialect, async (app) => {
        const engine = await app.engine()
        const others: Array<Promise<unknown>> = []
        const register = (target: Engine) =>
          target.register('mixed', 1, async (ctx) => {
            // Each branch takes a position once it sees its outcome: replay, delivering by
            // the recorded order, hands out the same positions only if the live run saw the
            // outcomes in that order too (else: NonDeterminismError, the run parks).
            const seen = (v: string) => ctx.localStep(`${v} seen`, () => v)
            const slow = ctx.transaction('slow', async (trx: Knex.Transaction) => {
              await trx(itemsTable(app.spec)).insert({ run_id: ctx.runId, note: 'slow', call: 0 })
              // Another run starts and this run's quick step records its outcome while this
              // transaction is open: on SQLite their batch waits for Knex's one connection.
              others.push(engine.start('insert-item', { note: 'other' }))
              await macrotasks(20)
              return 'slow'
            })
            const quick = ctx.localStep('quick', () => 'quick')
            const both = await Promise.all([slow.then(seen), quick.then(seen)])
            await ctx.waitForSignal('go')
            return [...both, await ctx.localStep('after', () => 'after')]
          })
        register(engine)
        const { runId } = await engine.start('mixed', null)
        await eventually(
          async () => (await engine.getRun(runId))?.status === 'waiting',
          'suspended',
        )
        const [other] = await Promise.all(others)
        const otherId = (other as { runId: string }).runId
        await engine.waitForRun(otherId, { timeoutMs: 20_000 })
        await engine.close()
        // Replayed by a new engine: the recorded delivery order must reproduce the branches.
        const second = await app.engine()
        register(second)
        await second.signal({ runId, name: 'go' })
        const outcome = await second.waitForRun(runId, { timeoutMs: 20_000 })
        assert.deepEqual(outcome, {
          runId,
          status: 'completed',
          output: ['slow', 'quick', 'after'],
        })
        assert.deepEqual(await deliveryOrder(app, ['slow', 'quick', 'after']), [
          'quick',
          'slow',
          'after',
        ])
        const notes = (await items(app.knex, app.spec)).map((row) => row.note).sort()
        assert.deepEqual(notes, ['other', 'slow'])
      })
    },
  )
}
