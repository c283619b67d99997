/**
 * Issue 15's queue rows: the standard workload (W workflows × S steps, C = 50 producers in
 * flight) with every step a registered step (`ctx.step`) — on a named queue of concurrency
 * QUEUE_CONCURRENCY (`queue-*`), on none (`steps-*`), or on none with the engine running at
 * most QUEUE_CONCURRENCY runs (`steps10-*`: the same bound on work in flight, without a queue).
 * queue/steps is what a queue costs when it is the bound (the bound included: these steps take
 * no time, so fewer in flight means fewer per commit); queue/steps10 is the queue's own cost.
 *
 *   npm run bench -- --store steps-sqlite-normal,steps10-sqlite-normal,queue-sqlite-normal
 */
import { Engine, silentLogger, type StateStore } from '@cairn/core'
import { C, engineRunOne, runWorkload, type WorkloadResult } from './workload.ts'

export const QUEUE_CONCURRENCY = 10

/**
 * `queued`: every step on the queue. Else the baseline: no queue, and (`bounded`) the engine
 * running at most QUEUE_CONCURRENCY runs at once — the same bound on work in flight, so the
 * ratio is the queue's own cost, not the bound's.
 */
export async function measureQueue(
  store: StateStore,
  queued: boolean,
  bounded = false,
): Promise<WorkloadResult> {
  const concurrency = bounded ? QUEUE_CONCURRENCY : C
  const engine = new Engine({ store, logger: silentLogger, concurrency })
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
