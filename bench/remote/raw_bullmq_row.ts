/**
 * `raw-bullmq`: the standard workload as plain BullMQ jobs — a workflow is a chain of S jobs,
 * each enqueueing the next (raw_bullmq_worker.ts, a separate process), its end published by the
 * last job over Redis pub/sub. No durable record of anything but Redis's: what the broker and this machine
 * do for remote steps before any workflow engine is involved.
 */
import { randomBytes } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { Queue } from 'bullmq'
import { Redis } from 'ioredis'
import { REDIS_URL } from '../../tests/helpers/services.ts'
import { dropPrefix } from '../../packages/bullmq/test/redis_fixture.ts'
import { C, runWorkload, type RunOne, type WorkloadResult } from '../workload.ts'
import { startWorkerProcess, stopWorkerProcess } from './worker_process.ts'
import { REMOTE_WARM_UP_RUNS } from './remote_row.ts'

const WORKER = fileURLToPath(new URL('./raw_bullmq_worker.ts', import.meta.url))

export async function measureRawBullmq(): Promise<WorkloadResult> {
  const prefix = `cairn-bench-raw-${randomBytes(6).toString('hex')}`
  const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: null })
  const queue = new Queue('chain', { connection, prefix })
  const subscriber = new Redis(REDIS_URL)
  const waiting = new Map<number, () => void>()
  subscriber.on('message', (_channel: string, id: string) => waiting.get(Number(id))?.())
  await subscriber.subscribe(`${prefix}:done`)
  const worker = await startWorkerProcess(WORKER, [REDIS_URL, prefix, String(C)])
  let chains = 0
  const runOne: RunOne = async (_id, steps) => {
    const id = chains++ // the workload reuses ids across phases: each chain gets its own
    const done = new Promise<void>((resolve) => waiting.set(id, resolve))
    await queue.add('step', { id, steps, i: 0, acc: 0 }, { removeOnComplete: true })
    await done
    waiting.delete(id)
  }
  try {
    return await runWorkload(runOne, REMOTE_WARM_UP_RUNS)
  } finally {
    await stopWorkerProcess(worker)
    await subscriber.quit()
    await queue.close()
    await connection.quit()
    await dropPrefix(prefix)
  }
}
