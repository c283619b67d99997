/**
 * Depth (EngineTransport.depth, for metrics): per step, due tasks nobody holds, delayed ones,
 * held ones, and how long the oldest due one has waited — over tasks of every requirement set.
 */
import assert from 'node:assert/strict'
import { receive, sleep, task, type DefineTransportTest } from './harness.ts'

export function depthTests(define: DefineTransportTest): void {
  define(
    'depth counts ready, delayed and held tasks per step, with the oldest ready age',
    async (t, h) => {
      const engine = await h.engine()
      const worker = await h.worker()
      assert.deepEqual(await engine.depth(Date.now(), ['charge', 'ship']), [], 'an empty transport')
      await engine.publish([
        { message: task('charge'), delayMs: 0 },
        { message: task('charge', { requires: ['gpu'] }), delayMs: 0 },
        { message: task('charge'), delayMs: 60_000 },
        { message: task('ship'), delayMs: 0 },
      ])
      const [held] = await receive(worker, ['charge'], { holdMs: 60_000 })
      assert.ok(held, 'the plain charge task was received')
      await sleep(250)
      const rows = await engine.depth(Date.now(), ['charge', 'ship'])
      const counted = rows.map(({ step, ready, delayed, held: holding }) => ({
        step,
        ready,
        delayed,
        held: holding,
      }))
      if ((t.depthCounts ?? 'all') === 'ready') {
        assert.deepEqual(counted, [
          { step: 'charge', ready: 1, delayed: null, held: null },
          { step: 'ship', ready: 1, delayed: null, held: null },
        ])
        for (const row of rows) assert.equal(row.oldestReadyAgeMs, null, `${row.step}: age`)
        return
      }
      assert.deepEqual(counted, [
        { step: 'charge', ready: 1, delayed: 1, held: 1 },
        { step: 'ship', ready: 1, delayed: 0, held: 0 },
      ])
      for (const row of rows) {
        const age = row.oldestReadyAgeMs
        assert.ok(age !== null && age >= 100, `${row.step}: the oldest ready task waited ${age} ms`)
      }
    },
  )
}
