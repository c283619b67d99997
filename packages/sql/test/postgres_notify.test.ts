/**
 * watchClaimable on Postgres: LISTEN/NOTIFY wake-ups published by applyBatch in the batch's
 * transaction, one per batch, the earliest availableAt as payload (messages and children's
 * notices waking runs included); a stopped watcher gets nothing; the listener reconnects
 * after its connection is killed. A requeue (outside applyBatch) wakes watchers too.
 */
import assert from 'node:assert/strict'
import type { StateStore, StoreOp } from '@cairn/core/contracts'
import type { PostgresStore } from '@cairn/sql/postgres'
import { wakeChannel } from '../src/postgres/wake_channel.ts'
import { deliver, suspendForSignal } from './helpers/inbox_races.ts'
import { finishTelling } from './helpers/notice_cases.ts'
import { adminQuery, pgTest, storeInFreshSchema } from './helpers/postgres.ts'

const T0 = 2_200_000_000_000

const create = (id: string, createdAt: number, claim = false): StoreOp => ({
  type: 'createRun',
  run: { id, workflow: 'w', version: 'v1', input: '{}', createdAt },
  ...(claim ? { claim: { owner: 'engine-a', leaseMs: 30_000 } } : {}),
})

/** Hints received, and a way to wait for the next ones. */
class Hints {
  readonly received: number[] = []
  #waiters: Array<() => void> = []

  readonly onWake = (at: number) => {
    this.received.push(at)
    for (const wake of this.#waiters.splice(0)) wake()
  }

  /** Resolves once `count` hints arrived in all; rejects after `ms`. */
  async next(count: number, ms: number): Promise<number[]> {
    const deadline = Date.now() + ms
    while (this.received.length < count) {
      const left = deadline - Date.now()
      if (left <= 0) throw new Error(`${this.received.length} of ${count} hints after ${ms} ms`)
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve)
        setTimeout(resolve, left)
      })
    }
    return this.received
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function withOpenStore(body: (store: PostgresStore, schema: string) => Promise<void>) {
  const { store, schema, cleanup } = storeInFreshSchema()
  try {
    await store.open()
    await body(store, schema)
  } finally {
    await store.close()
    await cleanup()
  }
}

pgTest(
  'an unclaimed create wakes a watcher within ~100 ms; a claimed create does not',
  async () => {
    await withOpenStore(async (store) => {
      const hints = new Hints()
      const stop = await store.watchClaimable(hints.onWake)
      await store.applyBatch([create('leased', T0, true)], T0)
      const started = performance.now()
      await store.applyBatch([create('queued', T0 + 5)], T0 + 5)
      assert.deepEqual(await hints.next(1, 1_000), [T0 + 5])
      const latency = performance.now() - started
      assert.ok(latency < 150, `hint arrived after ${latency.toFixed(1)} ms`)
      await stop()
    })
  },
)

pgTest(
  'one hint per batch, with the earliest availableAt of released, suspended and created runs',
  async () => {
    await withOpenStore(async (store) => {
      await store.applyBatch([create('a', T0, true), create('b', T0, true)], T0)
      const hints = new Hints()
      const stop = await store.watchClaimable(hints.onWake)
      await store.applyBatch(
        [
          {
            type: 'suspendRun',
            fence: { runId: 'a', epoch: 1 },
            wakeAt: T0 + 70,
            waitingOn: 'sleep',
            inboxSeen: 0,
          },
          { type: 'releaseRun', fence: { runId: 'b', epoch: 1 }, availableAt: T0 + 50 },
          create('c', T0 + 60),
          create('d', T0 + 40, true),
        ],
        T0 + 1,
      )
      await hints.next(1, 1_000)
      // Fenced writes and a timer-less suspend make nothing claimable: no hint.
      await store.applyBatch(
        [{ type: 'releaseRun', fence: { runId: 'a', epoch: 1 }, availableAt: T0 }],
        T0 + 2,
      )
      await store.applyBatch(
        [
          {
            type: 'suspendRun',
            fence: { runId: 'd', epoch: 1 },
            wakeAt: null,
            waitingOn: 'signal',
            inboxSeen: 0,
          },
        ],
        T0 + 2,
      )
      // Two waves (run e twice): the hint rides on the last wave and covers the first.
      await store.applyBatch(
        [create('e', T0 + 30), create('e', T0 + 30), create('f', T0 + 90)],
        T0 + 3,
      )
      assert.deepEqual(await hints.next(2, 1_000), [T0 + 50, T0 + 30])
      await sleep(100)
      assert.deepEqual(hints.received, [T0 + 50, T0 + 30])
      await stop()
    })
  },
)

pgTest(
  'a delivery waking a waiting run, and a suspend that missed a message, publish a hint at now',
  async () => {
    await withOpenStore(async (store) => {
      await store.applyBatch([create('a', T0, true), create('b', T0, true)], T0)
      const hints = new Hints()
      const stop = await store.watchClaimable(hints.onWake)
      // Nothing claimable: a timer-less suspend that saw every message, a message to a running run.
      await store.applyBatch([suspendForSignal('a', null)], T0 + 1)
      await store.applyBatch([deliver('b', null)], T0 + 2)
      await store.applyBatch([deliver('a', null)], T0 + 3)
      await store.applyBatch([suspendForSignal('b', null)], T0 + 4)
      assert.deepEqual(await hints.next(2, 1_000), [T0 + 3, T0 + 4])
      await sleep(100)
      assert.deepEqual(hints.received, [T0 + 3, T0 + 4])
      await stop()
    })
  },
)

pgTest(
  "a child's notice waking its waiting parent publishes a hint at now; one to a running parent does not",
  async () => {
    await withOpenStore(async (store) => {
      await store.applyBatch(
        ['a', 'b', 'c1', 'c2'].map((id) => create(id, T0, true)),
        T0,
      )
      const hints = new Hints()
      const stop = await store.watchClaimable(hints.onWake)
      await store.applyBatch([suspendForSignal('a', null)], T0 + 1)
      await store.applyBatch([finishTelling('c1', 'b')], T0 + 2)
      await store.applyBatch([finishTelling('c2', 'a')], T0 + 3)
      assert.deepEqual(await hints.next(1, 1_000), [T0 + 3])
      await sleep(100)
      assert.deepEqual(hints.received, [T0 + 3])
      await stop()
    })
  },
)

pgTest('a requeue wakes a watcher with the time the run became claimable', async () => {
  await withOpenStore(async (store) => {
    const hints = new Hints()
    await store.applyBatch([create('failed', T0, true)], T0)
    const fence = { runId: 'failed', epoch: 1 }
    const fail: StoreOp = { type: 'finishRun', fence, status: 'failed', output: null, error: '{}' }
    await store.applyBatch([fail], T0 + 1)
    const stop = await store.watchClaimable(hints.onWake)
    const refused = await store.requeueRun({
      runId: 'failed',
      epoch: 0,
      resetSeqs: [],
      now: T0 + 2,
    })
    assert.equal(refused.status, 'refused')
    await store.requeueRun({ runId: 'failed', epoch: 1, resetSeqs: [], now: T0 + 3 })
    assert.deepEqual(
      await hints.next(1, 1_000),
      [T0 + 3],
      'one hint, from the requeue that applied',
    )
    await stop()
  })
})

pgTest('a stopped watcher receives nothing, and schemas do not wake each other', async () => {
  await withOpenStore(async (store) => {
    const other = storeInFreshSchema()
    try {
      await other.store.open()
      const stopped = new Hints()
      const elsewhere = new Hints()
      const stop = await store.watchClaimable(stopped.onWake)
      const stopOther = await other.store.watchClaimable(elsewhere.onWake)
      await stop()
      await store.applyBatch([create('a', T0)], T0)
      await sleep(200)
      assert.deepEqual(stopped.received, [])
      assert.deepEqual(elsewhere.received, [])
      await stopOther()
    } finally {
      await other.store.close()
      await other.cleanup()
    }
  })
})

pgTest('the listener survives pg_terminate_backend of its connection and resumes', async () => {
  await withOpenStore(async (store, schema) => {
    const hints = new Hints()
    const stop = await store.watchClaimable(hints.onWake)
    const listening = `SELECT pid FROM pg_stat_activity WHERE application_name = 'cairn-wake' AND query = $1`
    const listen = `LISTEN "${wakeChannel(schema)}"`
    const [[pid]] = (await adminQuery(listening, [listen])) as [[number]]
    await adminQuery('SELECT pg_terminate_backend($1)', [pid])
    await waitFor(async () => {
      const rows = await adminQuery(listening, [listen])
      return rows.length === 1 && rows[0]?.[0] !== pid
    })
    await store.applyBatch([create('a', T0 + 7)], T0)
    assert.deepEqual(await hints.next(1, 1_000), [T0 + 7])
    await stop()
  })
})

pgTest('close() stops the watchers; watchClaimable on a closed store is refused', async () => {
  const { store, schema, cleanup } = storeInFreshSchema()
  try {
    await store.open()
    await store.watchClaimable(() => undefined)
    await store.close()
    const rows = await adminQuery(
      `SELECT pid FROM pg_stat_activity WHERE application_name = 'cairn-wake' AND query = $1`,
      [`LISTEN "${wakeChannel(schema)}"`],
    )
    assert.deepEqual(rows, [])
    await assert.rejects(
      (store as StateStore).watchClaimable?.(() => undefined) ?? Promise.reject(),
      {
        code: 'E_STORE_FAILURE',
      },
    )
  } finally {
    await cleanup()
  }
})

async function waitFor(condition: () => Promise<boolean>, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`)
    await sleep(25)
  }
}
