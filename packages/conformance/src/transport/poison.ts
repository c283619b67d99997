/** Poison: a message that is not wire v1 is refused, reported, and does not block what follows. */
import assert from 'node:assert/strict'
import { collectReports, receive, resultFor, task, type DefineTransportTest } from './harness.ts'

export function poisonTests(define: DefineTransportTest): void {
  define(
    'a poison task is refused and reported, never delivered; the next task is',
    async (t, h) => {
      const engine = await h.engine()
      const worker = await h.worker()
      await t.publishRawTask('poison-1', '{"v":1,"type":"task","__proto__":{"x":1}}', 'charge')
      await t.publishRawTask('poison-2', 'not json at all', 'charge')
      const good = task('charge')
      await engine.publish([{ message: good, delayMs: 0 }])
      const [got] = await receive(worker, ['charge'], { max: 1 })
      assert.equal(got?.message.taskId, good.taskId)
      const more = await receive(worker, ['charge'], { max: 10, waitMs: 300 })
      assert.deepEqual(more, [], 'a poison task was delivered')
      assert.deepEqual(
        t.refused.filter((r) => r.stream === 'tasks').map((r) => r.refusal.code),
        ['E_WIRE_INVALID', 'E_WIRE_INVALID'],
      )
    },
  )

  define('a poison report is refused and reported; results after it arrive', async (t, h) => {
    const engine = await h.engine()
    const worker = await h.worker()
    const log = await collectReports(engine)
    await t.sendRawReport('{"v":2,"type":"result"}')
    await t.sendRawReport('{"v":1,"type":"result","taskId":"x"}')
    const sent = task('charge')
    await engine.publish([{ message: sent, delayMs: 0 }])
    const [got] = await receive(worker, ['charge'])
    await got?.complete(resultFor(sent))
    await log.until('the good result', (l) => l.results().length === 1)
    assert.deepEqual(
      t.refused.filter((r) => r.stream === 'reports').map((r) => r.refusal.code),
      ['E_WIRE_VERSION', 'E_WIRE_INVALID'],
    )
  })
}
