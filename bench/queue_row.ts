/**
 * Issue 15's queue rows: the standard workload (W workflows × S steps, C = 50 producers in
 * flight) with every step a registered step (`ctx.step`) — on a named queue of concurrency
 * QUEUE_CONCURRENCY (`queue-*`: an item per attempt; `queue-leased-*`: the queue with slot
 * leases), on none (`steps-*`), or on none with the engine running at most QUEUE_CONCURRENCY
 * runs (`steps10-*`: the same bound on work in flight, without a queue).
 * queue/steps is what a queue costs when it is the bound (the bound included: these steps take
 * no time, so fewer in flight means fewer per commit); queue/steps10 is the queue's own cost.
 *
 *   npm run bench -- --store steps10-sqlite-normal,queue-sqlite-normal,queue-leased-sqlite-normal
 */
import { Engine, silentLogger, type StateStore } from '@cairn/core'
import { C, engineRunOne, runWorkload, type WorkloadResult } from './workload.ts'

export const QUEUE_CONCURRENCY = 10

/** Which queue row: see the header. */
export type QueueVariant = 'steps' | 'steps10' | 'queue' | 'queue-leased'

/**
 * `queue`: every step on the queue (an item per attempt); `queue-leased`: the same queue with
 * slot leases (docs/flow-control.md "Slot leases"). Else the baseline: no queue, and
 * (`steps10`) the engine running at most QUEUE_CONCURRENCY runs at once — the same bound on
 * work in flight, so the ratio is the queue's own cost, not the bound's.
 */
export async function measureQueue(
  store: StateStore,
  variant: QueueVariant,
): Promise<WorkloadResult> {
  const queued = variant === 'queue' || variant === 'queue-leased'
  const concurrency = variant === 'steps10' ? QUEUE_CONCURRENCY : C
  const engine = new Engine({ store, logger: silentLogger, concurrency })
  engine.registerQueue('bench', {
    concurrency: QUEUE_CONCURRENCY,
    slotLeases: variant === 'queue-leased',
  })
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
