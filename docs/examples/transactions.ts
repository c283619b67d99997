/**
 * docs/transactions.md's example, runnable: `node docs/examples/transactions.ts` (tests/docs
 * runs it). A transactional step debits an account in the application's own database, in the
 * same transaction as its checkpoint: the first attempt fails after writing (rolled back), the
 * retry commits, and the account is debited exactly once.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Engine, silentLogger } from '@cairn/core'
import { createKnexStore } from '@cairn/sql/knex'
import knex, { type Knex } from 'knex'

const dir = mkdtempSync(join(tmpdir(), 'cairn-tx-'))
const db = knex({
  client: 'better-sqlite3',
  connection: { filename: join(dir, 'app.db') },
  useNullAsDefault: true,
})
await db.schema.createTable('accounts', (table) => {
  table.string('id').primary()
  table.integer('balance')
})
await db.schema.createTable('ledger', (table) => {
  table.string('run_id')
  table.integer('amount')
})
await db('accounts').insert({ id: 'acme', balance: 100 })

const engine = new Engine({
  store: createKnexStore(db),
  instanceId: 'worker-1',
  logger: silentLogger,
})
engine.register('debit', 1, async (ctx, amount: number) => {
  // `trx` is a Knex transaction: every write through it commits with the step's checkpoint.
  // (Typed so without the annotation too — unless @cairn/adonis is loaded, as in this repository.)
  const balance = await ctx.transaction(
    'debit',
    async (trx: Knex.Transaction, { attempt }) => {
      await trx('accounts').where({ id: 'acme' }).decrement('balance', amount)
      await trx('ledger').insert({ run_id: ctx.runId, amount })
      if (attempt === 1) throw new Error('flaky downstream check') // rolls both writes back
      const row = await trx('accounts').where({ id: 'acme' }).first('balance')
      return row.balance as number
    },
    { retries: 3, backoff: { type: 'fixed', delay: 10 } },
  )
  return { balance }
})
await engine.startDriving()
const { runId } = await engine.start('debit', 30)
assert.deepEqual(await engine.waitForRun(runId, { timeoutMs: 10_000 }), {
  runId,
  status: 'completed',
  output: { balance: 70 },
})
await engine.close()
assert.deepEqual(await db('ledger').select('amount'), [{ amount: 30 }]) // once, not twice
console.log(`debited once: balance ${(await db('accounts').first('balance')).balance}`)
await db.destroy()
rmSync(dir, { recursive: true, force: true })
