/** Reports: acknowledged when the handler resolves, delivered again when it rejects. */
import assert from 'node:assert/strict'
import { receive, ReportLog, resultFor, sleep, task, type DefineTransportTest } from './harness.ts'

export function reportTests(define: DefineTransportTest): void {
  define(
    'a report batch the handler rejects is delivered again; once acknowledged, never again',
    async (_t, h) => {
      const engine = await h.engine()
      const worker = await h.worker()
      const log = new ReportLog()
      let rejections = 0
      await engine.consume(async (reports) => {
        if (rejections === 0 && reports.some((r) => r.type === 'result')) {
          rejections += 1
          throw new Error('store briefly unreachable')
        }
        log.add(reports)
      })
      const sent = task('charge')
      await engine.publish([{ message: sent, delayMs: 0 }])
      const [got] = await receive(worker, ['charge'])
      const result = resultFor(sent)
      await got?.complete(result)
      await log.until('the redelivered result', (l) => l.results().length === 1)
      assert.equal(rejections, 1)
      assert.deepEqual(log.results(), [result])
      await sleep(500)
      assert.equal(log.results().length, 1, 'an acknowledged result was delivered again')
    },
  )

  define('a second consumer on one engine half is refused', async (_t, h) => {
    const engine = await h.engine()
    await engine.consume(async () => {})
    await assert.rejects(() => engine.consume(async () => {}), { code: 'E_INVALID_ARGUMENT' })
  })

  define('results of two engines are each consumed once across them', async (_t, h) => {
    const engines = [await h.engine(), await h.engine()]
    const worker = await h.worker()
    const log = new ReportLog()
    for (const engine of engines) await engine.consume(async (reports) => log.add(reports))
    const sent = Array.from({ length: 20 }, () => task('charge'))
    await engines[0]?.publish(sent.map((message) => ({ message, delayMs: 0 })))
    for (let i = 0; i < sent.length; i++) {
      const [got] = await receive(worker, ['charge'])
      assert.ok(got)
      await got.complete(resultFor(got.message))
    }
    await log.until('20 results', (l) => l.results().length >= 20)
    await sleep(300)
    const ids = log.results().map((r) => r.taskId)
    assert.equal(ids.length, 20, 'a result was consumed twice')
    assert.deepEqual([...new Set(ids)].sort(), sent.map((m) => m.taskId).sort())
  })
}
