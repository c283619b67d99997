/** Holds: a silent worker loses its task, a beating one keeps it, hand-back and close give it back. */
import assert from 'node:assert/strict'
import {
  collectReports,
  HOLD_MS,
  receive,
  resultFor,
  sleep,
  task,
  type DefineTransportTest,
} from './harness.ts'
import type { HeartbeatMessage, TaskMessage } from '@cairn/core/wire'

function beat(message: TaskMessage, workerId = 'w-1'): HeartbeatMessage {
  return {
    v: 1,
    type: 'heartbeat',
    taskId: message.taskId,
    runId: message.runId,
    seq: message.seq,
    attempt: message.attempt,
    workerId,
    at: Date.now(),
  }
}

export function holdTests(define: DefineTransportTest): void {
  define(
    'a task held without heartbeats past holdMs is delivered again, same id; the silent holder is told',
    async (_t, h) => {
      const engine = await h.engine()
      const silent = await h.worker()
      const other = await h.worker()
      const sent = task('charge')
      await engine.publish([{ message: sent, delayMs: 0 }])
      const [first] = await receive(silent, ['charge'])
      assert.ok(first)
      const [again] = await receive(other, ['charge'], { waitMs: 10_000 })
      assert.equal(again?.message.taskId, sent.taskId)
      assert.equal(await first.heartbeat(beat(sent)), 'lost')
    },
  )

  define(
    "a lapsed holder's hand-back and complete do not touch the new holder's delivery",
    async (_t, h) => {
      const engine = await h.engine()
      const stale = await h.worker()
      const holder = await h.worker()
      const third = await h.worker()
      const sent = task('charge')
      await engine.publish([{ message: sent, delayMs: 0 }])
      const [lapsed] = await receive(stale, ['charge'])
      assert.ok(lapsed)
      const [current] = await receive(holder, ['charge'], { waitMs: 10_000 })
      assert.equal(current?.message.taskId, sent.taskId, 'redelivered after the lapse')
      // The new holder beats through the rest of the test (every worker on one hold).
      let beating = true
      const beats = (async () => {
        while (beating) {
          assert.equal(await current.heartbeat(beat(sent, 'w-2')), 'held')
          await sleep(HOLD_MS / 4)
        }
      })()
      try {
        // The stale worker wakes up: it hands back, then completes, what it no longer holds.
        await lapsed.handBack()
        await lapsed.complete(resultFor(sent, '"late"', 'w-stale'))
        const stolen = await receive(third, ['charge'], { waitMs: HOLD_MS * 2 })
        assert.deepEqual(
          stolen.map((r) => r.message.taskId),
          [],
          'a stale hand-back or complete released the task another worker holds',
        )
      } finally {
        beating = false
        await beats
      }
      assert.equal(await current.heartbeat(beat(sent, 'w-2')), 'held')
    },
  )

  define('heartbeats keep the hold and reach the engine', async (_t, h) => {
    const engine = await h.engine()
    const holder = await h.worker()
    const other = await h.worker()
    const log = await collectReports(engine)
    const sent = task('charge')
    await engine.publish([{ message: sent, delayMs: 0 }])
    const [got] = await receive(holder, ['charge'])
    assert.ok(got)
    // The other worker waits twice the hold; the holder beats for three holds, so its beats
    // cover the whole wait.
    const stolen = receive(other, ['charge'], { waitMs: HOLD_MS * 2 })
    for (let i = 0; i < 12; i++) {
      await sleep(HOLD_MS / 4)
      assert.equal(await got.heartbeat(beat(sent)), 'held')
    }
    assert.deepEqual(await stolen, [], 'a task with current heartbeats went to another worker')
    await log.until(
      'the heartbeats',
      (l) => l.reports.filter((r) => r.type === 'heartbeat').length >= 1,
    )
    await got.complete(resultFor(sent))
    await log.until('the result', (l) => l.results().length === 1)
  })

  define('a handed-back task is delivered again at once', async (_t, h) => {
    const engine = await h.engine()
    const first = await h.worker()
    const second = await h.worker()
    const sent = task('charge')
    await engine.publish([{ message: sent, delayMs: 0 }])
    const [got] = await receive(first, ['charge'], { holdMs: 60_000 })
    await got?.handBack()
    const [again] = await receive(second, ['charge'], { waitMs: 2_000 })
    assert.equal(again?.message.taskId, sent.taskId)
  })

  define('closing a worker hands back what it holds', async (t, h) => {
    const engine = await h.engine()
    const closing = t.worker()
    await closing.open()
    const other = await h.worker()
    const sent = [task('charge'), task('charge')]
    await engine.publish(sent.map((message) => ({ message, delayMs: 0 })))
    const held = await receive(closing, ['charge'], { max: 2, holdMs: 60_000 })
    assert.equal(held.length, 2)
    await closing.close()
    const again = await receive(other, ['charge'], { max: 2, waitMs: 2_000 })
    const ids = new Set(again.map((r) => r.message.taskId))
    if (ids.size < 2)
      ids.add((await receive(other, ['charge'], { waitMs: 2_000 }))[0]?.message.taskId ?? '')
    assert.deepEqual([...ids].sort(), sent.map((m) => m.taskId).sort())
  })

  define('a completed task is never delivered again', async (_t, h) => {
    const engine = await h.engine()
    const worker = await h.worker()
    const sent = task('charge')
    await engine.publish([{ message: sent, delayMs: 0 }])
    const [got] = await receive(worker, ['charge'])
    await got?.complete(resultFor(sent))
    const again = await receive(worker, ['charge'], { waitMs: HOLD_MS * 2 })
    assert.deepEqual(again, [])
  })
}
