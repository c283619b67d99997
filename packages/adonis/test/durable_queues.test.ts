/**
 * `node ace durable:queues` in the fixture app (config: `carrier`, concurrency 2, and `idle`),
 * as a child process, over queue items the test writes through the app's SQLite store: three
 * steps asked `carrier` for a slot, two hold one and one waits. Read from the store.
 */
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { after, before, describe, test } from 'node:test'
import type { StoreOp } from '@cairn/core/contracts'
import { SqliteStore } from '@cairn/sql/sqlite'
import { runAce } from './ace_process.ts'

const T0 = Date.now() - 60_000

void describe('durable:queues', () => {
  let db = ''
  let dir = ''
  after(() => rm(dir, { recursive: true, force: true }))

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cairn-adonis-queues-'))
    db = join(dir, 'durable.sqlite')
    const store = new SqliteStore({ path: db })
    await store.open()
    for (const id of ['a', 'b', 'c']) {
      const run = { id, workflow: 'ship', version: '1', input: 'null', createdAt: T0 }
      const claim = { owner: 'seeder', leaseMs: 3_600_000 }
      const checkpoint = {
        runId: id,
        seq: 0,
        name: 'call',
        kind: 'step' as const,
        status: 'waiting' as const,
        attempts: 0,
        order: null,
        input: null,
        output: null,
        error: null,
        wakeAt: null,
        startedAt: T0,
        updatedAt: T0,
        worker: null,
      }
      const enqueue = {
        queue: 'carrier',
        concurrency: 2,
        attempt: 1,
        priority: 0,
        fairnessKey: '',
        rateLimit: null,
      }
      const ops: StoreOp[] = [
        { type: 'createRun', run, claim },
        { type: 'saveCheckpoint', fence: { runId: id, epoch: 1 }, checkpoint, enqueue },
      ]
      await store.applyBatch(ops, T0)
    }
    await store.close()
  })

  void test('--json lists every configured queue with what the store holds', async () => {
    const exit = await runAce(['durable:queues', '--json'], db)
    assert.equal(exit.code, 0, exit.stderr)
    const { queues } = JSON.parse(exit.stdout) as { queues: unknown[] }
    assert.deepEqual(queues, [
      {
        queue: 'carrier',
        concurrency: 2,
        granted: 2,
        leased: 0,
        waiting: 1,
        oldestWaitingSince: T0,
        rateLimit: null,
        recentGrants: 0,
        throttled: 0,
      },
      {
        queue: 'idle',
        concurrency: 5,
        granted: 0,
        leased: 0,
        waiting: 0,
        oldestWaitingSince: null,
        rateLimit: { limit: 10, periodMs: 60_000 },
        recentGrants: 0,
        throttled: 0,
      },
    ])
  })

  void test('the table shows running, leased, waiting and the oldest wait', async () => {
    const exit = await runAce(['durable:queues'], db)
    assert.equal(exit.code, 0, exit.stderr)
    const row = exit.stdout.split('\n').find((line) => line.includes('carrier')) ?? ''
    assert.match(row, /carrier\s+│\s+2\s+│\s+—\s+│\s+2\s+│\s+0\s+│\s+1\s+│\s+0\s+│\s+\d+ s/)
    assert.match(
      exit.stdout,
      /idle\s+│\s+5\s+│\s+0 \/ 10 per 1 min\s+│\s+0\s+│\s+0\s+│\s+0\s+│\s+0\s+│\s+—/,
    )
  })
})
