/**
 * docs/knex.md's example, runnable: `node docs/examples/knex.ts` (tests/docs runs it).
 * Cairn on an application's Knex instance, here better-sqlite3 on a temporary file: the
 * workflow's runs live in the application's database, next to its own tables.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Engine, silentLogger } from '@cairn/core'
import { createKnexStore } from '@cairn/sql/knex'
import knex from 'knex'

const dir = mkdtempSync(join(tmpdir(), 'cairn-knex-'))
// The application's Knex; `afterCreate` picks the durability of its one SQLite connection.
const db = knex({
  client: 'better-sqlite3',
  connection: { filename: join(dir, 'app.db') },
  useNullAsDefault: true,
  pool: {
    afterCreate: (conn: { pragma(sql: string): unknown }, done: () => void) => {
      conn.pragma('synchronous = FULL') // durable against power loss, not only crashes
      done()
    },
  },
})
await db.schema.createTable('orders', (table) => {
  table.string('id').primary()
  table.string('status')
})
await db('orders').insert({ id: 'o-1', status: 'new' })

const store = createKnexStore(db) // the dialect follows the Knex client
const engine = new Engine({ store, instanceId: 'worker-1', logger: silentLogger })
engine.register('ship', 1, async (ctx, orderId: string) => {
  await ctx.localStep('mark-shipped', () =>
    db('orders').where({ id: orderId }).update({ status: 'shipped' }),
  )
  return { orderId, shipped: true }
})
await engine.startDriving()
const { runId } = await engine.start('ship', 'o-1')
const outcome = await engine.waitForRun(runId, { timeoutMs: 10_000 })
assert.deepEqual(outcome, { runId, status: 'completed', output: { orderId: 'o-1', shipped: true } })

await engine.close() // closes the store; the Knex instance stays the application's
assert.deepEqual(await db('orders').select('status'), [{ status: 'shipped' }])
console.log(
  `${(await db('cairn_runs').count({ runs: '*' }))[0]?.runs} run in app.db, order shipped`,
)
await db.destroy()
rmSync(dir, { recursive: true, force: true })
