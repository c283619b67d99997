/**
 * docs/queue-transport.md's example, runnable with no server at all: a remote step travels
 * through @boringnode/queue's Knex adapter (the `database` driver of @adonisjs/queue) on a SQLite
 * file. Engine and worker share one process here; in production the worker is another process
 * (`node ace durable:worker`) with the same adapter.
 */
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { QueueSchemaService } from '@boringnode/queue'
import { knex as knexAdapter } from '@boringnode/queue/drivers/knex_adapter'
import { defineStep, Engine, MemoryStore, silentLogger } from '@cairn/core'
import { queueTransport } from '@cairn/queue'
import { createWorker } from '@cairn/worker'
import knex from 'knex'

const dir = await mkdtemp(join(tmpdir(), 'cairn-queue-example-'))
const db = knex({
  client: 'better-sqlite3',
  connection: { filename: join(dir, 'queue.db') },
  useNullAsDefault: true,
})
// @adonisjs/queue's migration makes this table in an app; here the schema service does.
await new QueueSchemaService(db).createJobsTable()

const transport = queueTransport({ adapter: knexAdapter(db) })

const renderInvoice = defineStep(
  'render-invoice',
  async (order: { id: string }) => ({ pdf: `invoice-${order.id}.pdf` }),
  { transport: 'queue' },
)

const engine = new Engine({
  store: new MemoryStore(),
  logger: silentLogger,
  transports: { queue: transport.engine() },
})
engine.registerStep(renderInvoice)
engine.register('invoice', 1, async (ctx, order: { id: string }) => ctx.step(renderInvoice, order))

const worker = createWorker({ transport: transport.worker(), steps: [renderInvoice] })
await worker.start()
await engine.startDriving()

const { runId } = await engine.start('invoice', { id: 'o-9' })
const outcome = await engine.waitForRun(runId, { timeoutMs: 20_000 })
assert.deepEqual(outcome, { runId, status: 'completed', output: { pdf: 'invoice-o-9.pdf' } })
const [step] = await engine.getSteps(runId)
assert.equal(step?.worker?.id, worker.id, 'the step ran on the worker')

await worker.close()
await engine.close()
await db.destroy()
await rm(dir, { recursive: true, force: true })
console.log(`run ${runId}: ${JSON.stringify(outcome.status === 'completed' && outcome.output)}`)
