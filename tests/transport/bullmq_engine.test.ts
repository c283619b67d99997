/**
 * Remote steps end to end on a real broker: engines on each SQL store, the BullMQ transport on
 * the machine's Redis, two store-less workers. Every run completes, and every step body ran
 * exactly once (no crash here: redelivery is the conformance suite's and the fault tests' job).
 */
import assert from 'node:assert/strict'
import { bullmqTransport } from '@cairn/bullmq'
import { createWorker } from '@cairn/worker'
import { eachStore } from '../helpers/harness.ts'
import { REDIS_URL } from '../helpers/services.ts'
import { dropPrefix, redisUp, uniquePrefix } from '../../packages/bullmq/test/redis_fixture.ts'

// The SQL stores (the memory and Knex variants add nothing here); Redis down: skipped loudly by
// the fixture's probe (a failure under CI=true).
const SQL = (store: string) =>
  redisUp && (store === 'sqlite' || store === 'postgres' || store === 'mysql')

eachStore('remote steps over BullMQ', (test) => {
  test(
    '20 runs × 2 remote steps over two workers: all complete, each body ran once',
    async (env) => {
      const prefix = uniquePrefix()
      const transport = bullmqTransport({ connection: REDIS_URL, prefix })
      const ran = new Map<string, number>()
      const count = (key: string) => ran.set(key, (ran.get(key) ?? 0) + 1)
      const steps = {
        price: (order: { qty: number }, step: { runId: string }) => (
          count(`${step.runId}/price`),
          order.qty * 3
        ),
        label: (total: number, step: { runId: string }) => (
          count(`${step.runId}/label`),
          `total ${total}`
        ),
      }
      const workers = [
        createWorker({ transport: transport.worker(), steps, concurrency: 4 }),
        createWorker({ transport: transport.worker(), steps, concurrency: 4 }),
      ]
      const engine = await env.engine({ transports: { redis: transport.engine() } })
      try {
        for (const worker of workers) await worker.start()
        for (const name of ['price', 'label'])
          engine.registerStep(name, () => 'not here', { transport: 'redis' })
        engine.register('order', 1, async (ctx, qty: number) => {
          const total = await ctx.step<number>('price', { qty })
          return ctx.step<string>('label', total)
        })
        const runs = await Promise.all(
          Array.from({ length: 20 }, (_, i) => engine.start('order', i + 1)),
        )
        const outcomes = await Promise.all(
          runs.map(({ runId }) => engine.waitForRun(runId, { timeoutMs: 60_000 })),
        )
        outcomes.forEach((outcome, i) =>
          assert.deepEqual(outcome, {
            runId: runs[i]?.runId,
            status: 'completed',
            output: `total ${(i + 1) * 3}`,
          }),
        )
        assert.equal(ran.size, 40)
        assert.deepEqual([...new Set(ran.values())], [1], 'a step body ran twice')
      } finally {
        await Promise.all(workers.map((worker) => worker.close(1_000)))
        await engine.close()
        await dropPrefix(prefix)
      }
    },
    SQL,
  )
})
