/**
 * Issue 15's queue row: the standard workload (W workflows × S steps, C = 50 producers in
 * flight) with every step a registered step (`ctx.step`) — on a named queue of concurrency
 * QUEUE_CONCURRENCY, or on none (the baseline beside it in one run). The ratio of the two is
 * what a queue costs when it is the bound: at most 10 steps at once out of 50 runs in flight.
 *
 *   npm run bench -- --store steps-sqlite-normal,queue-sqlite-normal,steps-postgres,queue-postgres
 */
import { Engine, silentLogger, type StateStore } from '@cairn/core'
import { C, engineRunOne, runWorkload, type WorkloadResult } from './workload.ts'

export const QUEUE_CONCURRENCY = 10

export async function measureQueue(store: StateStore, queued: boolean): Promise<WorkloadResult> {
  const engine = new Engine({ store, logger: silentLogger, concurrency: C })
  engine.registerQueue('bench', { concurrency: QUEUE_CONCURRENCY })
  engine.registerStep('bench-step', (input: { i: number; acc: number }) => ({
    i: input.i,
    ok: true,
    v: input.acc + input.i,
  }))
  const options = queued ? { queue: 'bench' } : {}
  engine.register('bench-steps', 1, async (ctx, input: { id: number; steps: number }) => {
    let acc = 0
    for (let i = 0; i < input.steps; i++) {
      const r = await ctx.step<{ v: number }>('bench-step', { i, acc }, options)
      acc = r.v
    }
    return acc
  })
  await engine.startDriving()
  const result = await runWorkload(engineRunOne(engine))
  await engine.close()
  return result
}
