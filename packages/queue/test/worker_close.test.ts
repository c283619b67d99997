/**
 * The worker half closes whatever its adapter's store does: a hand-back, a destroy or an open
 * that never returns (Redis or a database that stopped answering) is given up after a bounded
 * while and reported to onError, and a hand-back that fails does not keep the adapter open
 * (its connections would keep the worker's process alive). An adapter of the test's own plays
 * the stuck store; a close that hung would be failed by the test's timeout, not by a measured
 * duration.
 */
import { firstAttemptTask } from '@cairn/core/testing'
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { TaskMessage } from '@cairn/core/wire'
import type { QueueAdapter, QueueJobData } from '../src/adapter.ts'
import { queueTransport } from '../src/index.ts'

const HANG = { timeout: 60_000 }
const NEVER = new Promise<never>(() => {})

function task(): TaskMessage {
  const runId = `close-${process.pid}-${Date.now()}`
  return firstAttemptTask({ runId, step: 'charge', heartbeatIntervalMs: 1_000 })
}

type Stuck = 'open' | 'renew' | 'renew-fails' | 'destroy'

/** An adapter holding one task; `stuck` calls never settle (or reject, for `renew-fails`). */
class StoreAdapter implements QueueAdapter {
  readonly #stuck: ReadonlySet<Stuck>
  #job: (QueueJobData & { acquiredAt: number }) | null
  destroyed = false
  /** Ends a stuck open's first read (the store answers at last). */
  answer: () => void = () => {}

  constructor(stuck: Stuck[]) {
    this.#stuck = new Set(stuck)
    this.#job = {
      id: 'job-1',
      name: 'task',
      payload: JSON.stringify(task()),
      attempts: 0,
      acquiredAt: Date.now(),
    }
  }

  setWorkerId(): void {}
  async popFrom() {
    const job = this.#job
    this.#job = null
    return job
  }
  async recoverStalledJobs() {
    return 0
  }
  renewJobs(): Promise<number> {
    if (this.#stuck.has('renew-fails')) return Promise.reject(new Error('the store is down'))
    return this.#stuck.has('renew') ? NEVER : Promise.resolve(1)
  }
  async completeJob() {}
  async failJob() {}
  async retryJob() {}
  async getJob() {
    return null
  }
  async pushOn() {}
  async pushLaterOn() {}
  sizeOf(): Promise<number> {
    if (!this.#stuck.has('open')) return Promise.resolve(0)
    return new Promise((resolve) => (this.answer = () => resolve(0)))
  }
  destroy(): Promise<void> {
    this.destroyed = true
    return this.#stuck.has('destroy') ? NEVER : Promise.resolve()
  }
}

async function holdingWorker(adapter: StoreAdapter) {
  const errors: unknown[] = []
  const worker = queueTransport({ adapter: () => adapter, onError: (e) => errors.push(e) }).worker()
  await worker.open()
  const signal = new AbortController().signal
  const held = await worker.receive({
    steps: ['charge'],
    capabilities: [],
    max: 1,
    holdMs: 30_000,
    signal,
  })
  assert.equal(held.length, 1, 'the worker holds the task')
  return { worker, errors }
}

const messages = (errors: unknown[]) => errors.map((e) => (e as Error).message)

void test(
  'close gives up a hand-back the store never answers, and still destroys the adapter',
  HANG,
  async () => {
    const adapter = new StoreAdapter(['renew'])
    const { worker, errors } = await holdingWorker(adapter)
    await worker.close()
    assert.match(messages(errors).join('\n'), /handing back 1 task\(s\) did not finish/)
    assert.equal(adapter.destroyed, true)
  },
)

void test(
  'a hand-back that fails: close resolves and destroys the adapter, the error to onError',
  HANG,
  async () => {
    const adapter = new StoreAdapter(['renew-fails'])
    const { worker, errors } = await holdingWorker(adapter)
    await worker.close()
    assert.deepEqual(messages(errors), ['the store is down'])
    assert.equal(adapter.destroyed, true, 'its connections are not left open')
  },
)

void test("close gives up an adapter's destroy that never returns", HANG, async () => {
  const adapter = new StoreAdapter(['destroy'])
  const { worker, errors } = await holdingWorker(adapter)
  await worker.close()
  assert.match(messages(errors).join('\n'), /the adapter's destroy did not finish/)
})

void test(
  'close during an open the store does not answer returns; the open, ending later, destroys its adapter',
  HANG,
  async () => {
    const adapter = new StoreAdapter(['open'])
    const worker = queueTransport({ adapter: () => adapter }).worker()
    const opening = worker.open()
    await worker.close()
    adapter.answer()
    await assert.rejects(opening, { code: 'E_INVALID_ARGUMENT', message: /closed/ })
    assert.equal(adapter.destroyed, true, 'an open that ended after the close keeps nothing open')
  },
)
