/**
 * Depth (EngineTransport.depth, for metrics): per step, due tasks nobody holds, delayed ones,
 * held ones, and how long the oldest due one has waited — over tasks of every requirement set;
 * and the count of deliveries beyond a task's first, which outlives the tasks.
 */
import assert from 'node:assert/strict'
import type { EngineTransport } from '@cairn/core/contracts'
import { receive, resultFor, sleep, task, type DefineTransportTest } from './harness.ts'

async function redeliveredPerStep(
  engine: EngineTransport,
  steps: string[],
): Promise<Record<string, number | null>> {
  const rows = await engine.depth(Date.now(), steps)
  return Object.fromEntries(rows.map((row) => [row.step, row.redelivered]))
}

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

  define(
    "depth counts deliveries beyond a task's first — a lapsed hold, a hand-back — and keeps the count after the task is done",
    async (t, h) => {
      const engine = await h.engine()
      const silent = await h.worker()
      const other = await h.worker()
      const charge = task('charge')
      await engine.publish([
        { message: charge, delayMs: 0 },
        { message: task('ship'), delayMs: 0 },
      ])
      const [shipped] = await receive(other, ['ship'])
      assert.ok(shipped, 'ship received once')
      const [lapsed] = await receive(silent, ['charge'])
      assert.ok(lapsed, 'charge received')
      const [again] = await receive(other, ['charge'], { waitMs: 10_000 })
      assert.equal(again?.message.taskId, charge.taskId, 'charge delivered again after the lapse')
      await again.handBack()
      const [third] = await receive(other, ['charge'])
      assert.equal(third?.message.taskId, charge.taskId, 'charge delivered a third time')
      const counting = (t.depthCounts ?? 'all') === 'all'
      assert.deepEqual(
        await redeliveredPerStep(engine, ['charge', 'ship']),
        counting ? { charge: 2, ship: 0 } : { charge: null, ship: null },
      )
      await third.complete(resultFor(charge, '"ok"'))
      await shipped.complete(resultFor(shipped.message, '"ok"'))
      const after = await redeliveredPerStep(engine, ['charge', 'ship'])
      if (counting) assert.equal(after['charge'], 2, 'the count outlives the task')
      else assert.ok(Object.values(after).every((n) => n === null))
    },
  )
}
