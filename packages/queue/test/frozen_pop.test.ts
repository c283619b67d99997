/**
 * A worker frozen inside the Knex adapter's pop (its transaction locked the job's row, then
 * went silent) holds that task until the server ends its transaction: with the setting
 * docs/queue-transport.md gives for MariaDB (`idle_transaction_timeout`), another worker takes
 * the task within seconds. Without it, the task would wait for the frozen worker to resume.
 */
import { firstAttemptTask } from '@cairn/core/testing'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { test } from 'node:test'
import { QueueSchemaService } from '@boringnode/queue'
import { knex as knexAdapter } from '@boringnode/queue/drivers/knex_adapter'
import type { ReceivedTask } from '@cairn/core/contracts'
import type { TaskMessage } from '@cairn/core/wire'
import knex, { type Knex } from 'knex'
import { MYSQL_URL, serviceAvailable } from '../../../tests/helpers/services.ts'
import { queueTransport } from '../src/index.ts'
import { queueNames } from '../src/layout.ts'

const mysqlUp = await serviceAvailable('mysql')

interface CallbackConnection {
  query(sql: string, callback: (error: unknown) => void): void
}

function charge(): TaskMessage {
  const runId = `r-${randomBytes(4).toString('hex')}`
  return firstAttemptTask({ runId, step: 'charge' })
}

void test(
  'a pop frozen mid-transaction releases its task once MariaDB ends the idle transaction',
  { skip: !mysqlUp && 'MariaDB is down' },
  async (t) => {
    const table = `cq_frozen_${process.pid}_${randomBytes(4).toString('hex')}`
    const prefix = `cf${randomBytes(4).toString('hex')}`
    const db = knex({
      client: 'mysql2',
      connection: MYSQL_URL,
      pool: {
        min: 0,
        max: 6,
        afterCreate: (conn: CallbackConnection, done: (e: unknown, c: unknown) => void) =>
          conn.query('SET SESSION idle_transaction_timeout = 2', (error) => done(error, conn)),
      },
    })
    const schema = new QueueSchemaService(db)
    await schema.createJobsTable(table)
    const transport = queueTransport({
      adapter: knexAdapter(db, table),
      prefix,
      pollIntervalMs: 50,
      stalledIntervalMs: 250,
    })
    const engine = transport.engine()
    const worker = transport.worker()
    await engine.open()
    await worker.open()
    let frozen: Knex.Transaction | null = null
    t.after(async () => {
      await frozen?.rollback().catch(() => {}) // first: closing needs the row it may still lock
      await worker.close()
      await engine.close()
      await schema.dropJobsTable(table)
      await db.destroy()
    })
    const sent = charge()
    await engine.publish([{ message: sent, delayMs: 0 }])
    // The frozen worker: its pop's transaction locked the task's row and went silent.
    frozen = await db.transaction()
    const locked = await frozen(table)
      .where('queue', queueNames(prefix).task('charge', []))
      .forUpdate()
    assert.equal(locked.length, 1, 'the frozen pop holds the task row')
    // As the worker runtime does: a failed receive (the pool meets the ended connection) is
    // tried again.
    const deadline = Date.now() + 15_000
    let got: ReceivedTask | undefined
    while (got === undefined && Date.now() < deadline) {
      try {
        ;[got] = await worker.receive({
          steps: ['charge'],
          capabilities: [],
          max: 1,
          holdMs: 30_000,
          signal: AbortSignal.timeout(Math.max(1, deadline - Date.now())),
        })
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 200))
      }
    }
    assert.equal(got?.message.taskId, sent.taskId, 'the task stayed with the frozen pop')
  },
)
