/**
 * The worker process of the remote bench rows: serves `bench-step` (the standard workload's
 * step, computed on the worker) over BullMQ. Prints `ready` once it takes tasks; exits on SIGTERM.
 *   node bench/remote/bench_worker.ts <redisUrl> <prefix> <concurrency>
 */
import { bullmqTransport } from '@cairn/bullmq'
import { createWorker } from '@cairn/worker'

const [redisUrl = '', prefix = '', concurrency = '50'] = process.argv.slice(2)
const worker = createWorker({
  transport: bullmqTransport({ connection: redisUrl, prefix }).worker(),
  concurrency: Number(concurrency),
  steps: {
    'bench-step': (input: { i: number; acc: number }) => ({
      i: input.i,
      ok: true,
      v: input.acc + input.i,
    }),
  },
})
await worker.start()
process.stdout.write('ready\n')
process.once('SIGTERM', () => void worker.close(2_000).then(() => process.exit(0)))
