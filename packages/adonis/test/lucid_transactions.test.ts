/**
 * `stores.lucid` on each dialect Lucid runs (SQLite, Postgres, MySQL/MariaDB): workflows run
 * with Cairn's tables in the app's database, and `ctx.transaction` hands the step a Lucid
 * TransactionClient — a model and a query builder write in the step's transaction, a failed
 * attempt's writes roll back, and Lucid's commit hooks fire for the attempt that committed.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { BaseModel } from '@adonisjs/lucid/orm'
import { defineConfig, stores } from '@cairn/adonis'
import type { Engine } from '@cairn/core'
import GreetWorkflow from './fixtures/app/app/workflows/greet_workflow.ts'
import { startApp } from './helpers.ts'
import { availableDialects, lucidPlace, type LucidDialect } from './lucid_databases.ts'

const lucidProvider = () => import('@adonisjs/lucid/database_provider')

/** An app model, declared without decorators (Node runs this file with types stripped). */
class Item extends BaseModel {
  static override table = 'tx_items'
  declare id: number
  declare runId: string
  declare note: string
}
Item.boot()
Item.$addColumn('id', { isPrimary: true })
Item.$addColumn('runId', {})
Item.$addColumn('note', {})

async function lucidApp(t: test.TestContext, dialect: LucidDialect) {
  const place = await lucidPlace(t, dialect)
  const app = await startApp(
    t,
    defineConfig({ store: 'lucid', stores: { lucid: stores.lucid(place.store) }, drive: true }),
    { providers: [lucidProvider], config: { database: place.database } },
  ).catch(async (error: unknown) => {
    await place.drop()
    throw error
  })
  // After startApp's terminate hook (hooks run in the order added): the engine polls until then.
  t.after(() => place.drop())
  const db = await app.container.make('lucid.db')
  const engine: Engine = await app.container.make('durable.engine')
  return { app, db, engine }
}

for (const dialect of await availableDialects('stores.lucid')) {
  void test(`[${dialect}] stores.lucid runs workflows with Cairn's tables in the app's database`, async (t) => {
    const { db } = await lucidApp(t, dialect)
    assert.deepEqual(await GreetWorkflow.start({ name: dialect }), {
      greeting: `Hello, ${dialect}`,
    })
    const [row] = await db.from('cairn_runs').select('status')
    assert.deepEqual(row, { status: 'completed' })
  })

  void test(`[${dialect}] ctx.transaction gives a Lucid TransactionClient: models and query builders commit with the step, once`, async (t) => {
    const { db, engine } = await lucidApp(t, dialect)
    await db.connection().schema.createTable('tx_items', (table) => {
      table.increments('id')
      table.string('run_id', 64)
      table.string('note', 64)
    })
    await db.connection().schema.createTable('tx_log', (table) => {
      table.string('run_id', 64)
      table.integer('attempt')
    })
    const committed: number[] = []
    const rolledBack: number[] = []
    engine.register('save-item', 1, async (ctx, note: string) =>
      ctx.transaction(
        'save',
        async (trx, step) => {
          assert.equal(trx.isTransaction, true)
          await Item.create({ runId: ctx.runId, note }, { client: trx })
          await trx
            .insertQuery()
            .table('tx_log')
            .insert({ run_id: ctx.runId, attempt: step.attempt })
          trx.after('commit', () => void committed.push(step.attempt))
          trx.after('rollback', () => void rolledBack.push(step.attempt))
          if (step.attempt === 1) throw new Error('the first attempt fails after writing')
          return step.attempt
        },
        { retries: 2, backoff: { type: 'fixed', delay: 10 } },
      ),
    )
    const { runId } = await engine.start('save-item', 'lamp')
    const outcome = await engine.waitForRun(runId, { timeoutMs: 20_000 })
    assert.deepEqual(outcome, { runId, status: 'completed', output: 2 })
    const items = await Item.query().select('runId', 'note')
    assert.deepEqual(
      items.map((item) => [item.runId, item.note]),
      [[runId, 'lamp']],
    )
    const log = await db.from('tx_log').select('attempt')
    assert.deepEqual(
      log.map((row: { attempt: unknown }) => Number(row.attempt)),
      [2],
    )
    assert.deepEqual(committed, [2], "Lucid's commit hook fired for the committed attempt only")
    assert.deepEqual(rolledBack, [1])
    const [step] = await engine.getSteps(runId)
    assert.deepEqual([step?.kind, step?.attempts], ['transaction', 2])
  })
}
