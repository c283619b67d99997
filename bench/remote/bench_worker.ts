/**
 * The worker process of the remote bench rows: serves `bench-step` (the standard workload's
 * step, computed on the worker) over the transport its spec names (bench_transport.ts). Prints
 * `ready` once it takes tasks; exits on SIGTERM.
 *   node bench/remote/bench_worker.ts <transport spec JSON> <concurrency>
 */
import { createWorker } from '@cairn/worker'
import { benchTransport, type BenchTransportSpec } from './bench_transport.ts'

const [spec = '', concurrency = '50'] = process.argv.slice(2)
const transport = await benchTransport(JSON.parse(spec) as BenchTransportSpec)
const worker = createWorker({
  transport: transport.worker(),
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
