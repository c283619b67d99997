/**
 * `remote-bullmq`: the standard workload where every step is a registered step on the BullMQ
 * transport, executed by one separate worker process (bench_worker.ts); the store is Postgres.
 * Same measurement as the engine rows (workload.ts), with a shorter warm-up: each warm-up run
 * is ten broker round trips.
 */
import { fileURLToPath } from 'node:url'
import { randomBytes } from 'node:crypto'
import { Engine, silentLogger, type StateStore } from '@cairn/core'
import { bullmqTransport } from '@cairn/bullmq'
import { REDIS_URL } from '../../tests/helpers/services.ts'
import { dropPrefix } from '../../packages/bullmq/test/redis_fixture.ts'
import { C, engineRunOne, runWorkload, type WorkloadResult } from '../workload.ts'
import { startWorkerProcess, stopWorkerProcess } from './worker_process.ts'

const WORKER = fileURLToPath(new URL('./bench_worker.ts', import.meta.url))
export const REMOTE_WARM_UP_RUNS = 200

export async function measureRemote(store: StateStore): Promise<WorkloadResult> {
  const prefix = `cairn-bench-${randomBytes(6).toString('hex')}`
  const transport = bullmqTransport({ connection: REDIS_URL, prefix })
  const engine = new Engine({
    store,
    logger: silentLogger,
    concurrency: C,
    transports: { redis: transport.engine() },
  })
  engine.registerStep('bench-step', () => null, { transport: 'redis' })
  engine.register('bench-steps', 1, async (ctx, input: { id: number; steps: number }) => {
    let acc = 0
    for (let i = 0; i < input.steps; i++) {
      const r = await ctx.step<{ v: number }>('bench-step', { i, acc })
      acc = r.v
    }
    return acc
  })
  const worker = await startWorkerProcess(WORKER, [REDIS_URL, prefix, String(C)])
  try {
    await engine.startDriving()
    return await runWorkload(engineRunOne(engine), REMOTE_WARM_UP_RUNS)
  } finally {
    await stopWorkerProcess(worker)
    await engine.close()
    await dropPrefix(prefix)
  }
}
