/** Many tasks, several workers: each task delivered and completed once. */
import assert from 'node:assert/strict'
import { collectReports, receive, resultFor, task, type DefineTransportTest } from './harness.ts'
import type { WorkerTransport } from '@cairn/core/contracts'

export function fanOutTests(define: DefineTransportTest): void {
  define(
    '1,000 tasks over 4 workers: every one delivered once, every result consumed once',
    async (_t, h) => {
      const engine = await h.engine()
      const log = await collectReports(engine)
      const workers = await Promise.all([h.worker(), h.worker(), h.worker(), h.worker()])
      const sent = Array.from({ length: 1000 }, () => task('fan'))
      await engine.publish(sent.map((message) => ({ message, delayMs: 0 })))
      const seen: string[] = []
      let left = sent.length
      const drain = async (worker: WorkerTransport) => {
        while (left > 0) {
          const got = await receive(worker, ['fan'], { max: 25, holdMs: 30_000, waitMs: 500 })
          left -= got.length
          for (const received of got) {
            seen.push(received.message.taskId)
            await received.complete(resultFor(received.message))
          }
        }
      }
      await Promise.all(workers.map(drain))
      assert.equal(seen.length, 1000, 'a task was delivered twice or lost')
      assert.equal(new Set(seen).size, 1000)
      await log.until('1,000 results', (l) => l.results().length >= 1000, 30_000)
      assert.equal(new Set(log.results().map((r) => r.taskId)).size, 1000)
    },
  )
}
