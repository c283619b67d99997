/**
 * Withdrawal (EngineTransport.withdraw, a remote step's pickupTimeoutMs): a task no worker ever
 * received is taken back and never delivered; one a worker received — held now, handed back,
 * or its hold lapsed — is `taken`; a completed or unknown one is `unknown`. Delayed tasks and
 * tasks with requirements are found where they went.
 */
import assert from 'node:assert/strict'
import { receive, resultFor, task, type DefineTransportTest } from './harness.ts'

export function withdrawalTests(define: DefineTransportTest): void {
  define(
    'a task nobody received is withdrawn and never delivered; twice is unknown',
    async (_t, h) => {
      const engine = await h.engine()
      const worker = await h.worker()
      const due = task('charge')
      const later = task('charge', { requires: ['gpu'] })
      await engine.publish([
        { message: due, delayMs: 0 },
        { message: later, delayMs: 300 },
      ])
      assert.equal(await engine.withdraw(due), 'withdrawn')
      assert.equal(await engine.withdraw(later), 'withdrawn', 'a delayed task with requirements')
      assert.equal(await engine.withdraw(due), 'unknown', 'withdrawn already')
      const got = await receive(worker, ['charge'], {
        capabilities: ['gpu'],
        max: 2,
        waitMs: 1_000,
      })
      assert.deepEqual(
        got.map((r) => r.message.taskId),
        [],
        'a withdrawn task was delivered',
      )
    },
  )

  define(
    'a task a worker received is taken: while held, handed back, or completed',
    async (_t, h) => {
      const engine = await h.engine()
      const worker = await h.worker()
      const sent = task('charge')
      await engine.publish([{ message: sent, delayMs: 0 }])
      const [held] = await receive(worker, ['charge'])
      assert.ok(held)
      assert.equal(await engine.withdraw(sent), 'taken', 'while held')
      await held.handBack()
      assert.equal(await engine.withdraw(sent), 'taken', 'handed back: it was picked up once')
      const [again] = await receive(worker, ['charge'], { waitMs: 2_000 })
      assert.equal(again?.message.taskId, sent.taskId, 'still delivered after the refusals')
      await again?.complete(resultFor(sent))
      assert.equal(await engine.withdraw(sent), 'unknown', 'completed')
      assert.equal(await engine.withdraw(task('never-published')), 'unknown')
    },
  )

  define('withdraw and receive racing: exactly one wins, for every task', async (_t, h) => {
    const engine = await h.engine()
    const worker = await h.worker()
    const sent = Array.from({ length: 40 }, () => task('charge'))
    await engine.publish(sent.map((message) => ({ message, delayMs: 0 })))
    const [outcomes, received] = await Promise.all([
      Promise.all(sent.map((message) => engine.withdraw(message))),
      receive(worker, ['charge'], { max: 40, waitMs: 1_000, holdMs: 60_000 }),
    ])
    const got = new Set(received.map((r) => r.message.taskId))
    sent.forEach((message, i) => {
      const outcome = outcomes[i]
      if (got.has(message.taskId)) assert.equal(outcome, 'taken', `${i}: received, then withdrawn`)
      else assert.equal(outcome, 'withdrawn', `${i}: not received, so withdrawn`)
    })
    const rest = await receive(worker, ['charge'], { max: 40, waitMs: 500 })
    assert.deepEqual(
      rest.map((r) => r.message.taskId),
      [],
      'a withdrawn task came later',
    )
  })
}
