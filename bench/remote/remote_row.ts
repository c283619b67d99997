/**
 * `remote-bullmq`, `remote-db` and `remote-queue`: the standard workload where every step is a
 * registered step on a transport (BullMQ, the db transport in the store's own Postgres schema,
 * or the @adonisjs/queue transport on @boringnode/queue's Redis adapter), executed by
 * one separate worker process (bench_worker.ts); the store is Postgres. Same measurement as the
 * engine rows (workload.ts), with a shorter warm-up: each warm-up run is ten round trips.
 */
import { fileURLToPath } from 'node:url'
import { randomBytes } from 'node:crypto'
import { Engine, silentLogger, type StateStore } from '@cairn/core'
import { PG_URL, REDIS_URL } from '../../tests/helpers/services.ts'
import { dropPrefix } from '../../packages/bullmq/test/redis_fixture.ts'
import { C, engineRunOne, runWorkload, type WorkloadResult } from '../workload.ts'
import { benchTransport, type BenchTransportSpec } from './bench_transport.ts'
import { startWorkerProcess, stopWorkerProcess } from './worker_process.ts'

const WORKER = fileURLToPath(new URL('./bench_worker.ts', import.meta.url))
export const REMOTE_WARM_UP_RUNS = 200

/** `schema`: the store's Postgres schema (the db transport's tables go beside the store's). */
export async function measureRemote(
  store: StateStore,
  kind: 'bullmq' | 'db' | 'queue',
  schema: string,
): Promise<WorkloadResult> {
  const spec: BenchTransportSpec =
    kind === 'db'
      ? { kind, connectionString: PG_URL, schema }
      : ({ kind, url: REDIS_URL, prefix: `cairn-bench-${randomBytes(6).toString('hex')}` } as const)
  const transport = await benchTransport(spec)
  const engine = new Engine({
    store,
    logger: silentLogger,
    concurrency: C,
    transports: { remote: transport.engine() },
  })
  engine.registerStep('bench-step', () => null, { transport: 'remote' })
  engine.register('bench-steps', 1, async (ctx, input: { id: number; steps: number }) => {
    let acc = 0
    for (let i = 0; i < input.steps; i++) {
      const r = await ctx.step<{ v: number }>('bench-step', { i, acc })
      acc = r.v
    }
    return acc
  })
  const worker = await startWorkerProcess(WORKER, [JSON.stringify(spec), String(C)])
  try {
    await engine.startDriving()
    return await runWorkload(engineRunOne(engine), REMOTE_WARM_UP_RUNS)
  } finally {
    await stopWorkerProcess(worker)
    await engine.close()
    if (spec.kind !== 'db') await dropPrefix(spec.prefix)
  }
}
