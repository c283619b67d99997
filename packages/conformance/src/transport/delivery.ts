/** Publishing and receiving: one delivery per task id, availability, order, steps and capabilities. */
import assert from 'node:assert/strict'
import {
  collectReports,
  receive,
  resultFor,
  sleep,
  task,
  type DefineTransportTest,
} from './harness.ts'

export function deliveryTests(define: DefineTransportTest): void {
  define(
    'a published task reaches a worker, and its result reaches the engine intact',
    async (_t, h) => {
      const engine = await h.engine()
      const worker = await h.worker()
      const log = await collectReports(engine)
      const sent = task('charge', {
        input: '{"amount":42,"when":{"$t":"Date","v":"2030-01-01T00:00:00.000Z"}}',
      })
      await engine.publish([{ message: sent, delayMs: 0 }])
      const [got] = await receive(worker, ['charge'])
      assert.deepEqual(got?.message, sent)
      const result = resultFor(sent, '{"chargeId":"ch-1"}')
      await got?.complete(result)
      await log.until('the result', (l) => l.results().length === 1)
      assert.deepEqual(log.results(), [result])
    },
  )

  define(
    'publishing a pending task id again adds no second delivery, held or not',
    async (_t, h) => {
      const engine = await h.engine()
      const worker = await h.worker()
      const other = await h.worker()
      const sent = task('charge')
      await engine.publish([{ message: sent, delayMs: 0 }])
      await engine.publish([{ message: sent, delayMs: 0 }])
      const first = await receive(worker, ['charge'], { max: 10, holdMs: 60_000 })
      assert.equal(first.length, 1)
      // The engine's republish sweep while a worker runs the task: still one delivery.
      await engine.publish([{ message: sent, delayMs: 0 }])
      const second = await receive(other, ['charge'], { max: 10, waitMs: 300 })
      assert.deepEqual(second, [], 'the same task id was delivered twice')
    },
  )

  define('a task is not delivered before its delay has passed', async (_t, h) => {
    const engine = await h.engine()
    const worker = await h.worker()
    const sent = task('charge')
    const availableAt = Date.now() + 600
    await engine.publish([{ message: sent, delayMs: 600 }])
    const early = await receive(worker, ['charge'], { waitMs: 200 })
    assert.deepEqual(early, [], 'delivered before its delay passed')
    const [later] = await receive(worker, ['charge'], { waitMs: 5_000 })
    assert.equal(later?.message.taskId, sent.taskId)
    assert.ok(Date.now() >= availableAt, 'delivered early')
  })

  define('tasks of one step available together are received in publish order', async (_t, h) => {
    const engine = await h.engine()
    const worker = await h.worker()
    const sent = [task('ship'), task('ship'), task('ship')]
    for (const message of sent) await engine.publish([{ message, delayMs: 0 }])
    const order: string[] = []
    while (order.length < sent.length) {
      const [got] = await receive(worker, ['ship'])
      assert.ok(got, 'a task went missing')
      order.push(got.message.taskId)
      await got.complete(resultFor(got.message))
    }
    assert.deepEqual(
      order,
      sent.map((m) => m.taskId),
    )
  })

  define(
    'a worker gets only the steps it serves and tasks whose requirements it meets',
    async (_t, h) => {
      const engine = await h.engine()
      const plain = await h.worker()
      const gpu = await h.worker()
      const render = task('render', { requires: ['gpu'] })
      const other = task('email')
      await engine.publish([
        { message: render, delayMs: 0 },
        { message: other, delayMs: 0 },
      ])
      const none = await receive(plain, ['render'], { max: 10, waitMs: 300 })
      assert.deepEqual(none, [], 'a task requiring gpu went to a worker without it')
      const [got] = await receive(gpu, ['render'], { capabilities: ['gpu', 'pdf'] })
      assert.equal(got?.message.taskId, render.taskId)
      const [mail] = await receive(plain, ['email'])
      assert.equal(mail?.message.taskId, other.taskId)
    },
  )

  define(
    'receive resolves with nothing when its signal is already aborted or aborts',
    async (_t, h) => {
      const worker = await h.worker()
      const aborted = await worker.receive({
        steps: ['x'],
        capabilities: [],
        max: 1,
        holdMs: 1000,
        signal: AbortSignal.abort(),
      })
      assert.deepEqual(aborted, [])
      const controller = new AbortController()
      const waiting = worker.receive({
        steps: ['x'],
        capabilities: [],
        max: 1,
        holdMs: 1000,
        signal: controller.signal,
      })
      await sleep(50)
      controller.abort()
      assert.deepEqual(await waiting, [])
    },
  )
}
