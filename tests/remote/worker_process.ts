/**
 * A worker process for the remote-step fault tests: serves step `slow`, whose body appends
 * `start <runId>` to a ledger file, works for a while, then appends `end <runId>` and returns.
 * Usage: node worker_process.ts <transport spec JSON> <ledger> <workMs> [capabilities, comma-separated]
 * (transport_spec.ts)
 * Prints `ready` once it takes tasks. SIGKILL is the point; SIGTERM drains.
 */
import { appendFileSync } from 'node:fs'
import { createWorker } from '@cairn/worker'
import { transportOf, type TransportSpec } from './transport_spec.ts'

const [spec = '', ledger = '', workMs = '1000', capabilities = ''] = process.argv.slice(2)
const transport = await transportOf(JSON.parse(spec) as TransportSpec)

const worker = createWorker({
  transport: transport.worker(),
  holdMs: 1_500,
  concurrency: 4,
  capabilities: capabilities === '' ? [] : capabilities.split(','),
  steps: {
    slow: async (input: { n: number }, step) => {
      appendFileSync(ledger, `start ${step.runId} ${process.pid}\n`)
      await new Promise((resolve) => setTimeout(resolve, Number(workMs)))
      appendFileSync(ledger, `end ${step.runId} ${process.pid}\n`)
      return `${input.n}:${process.pid}`
    },
  },
})
await worker.start()
process.stdout.write('ready\n')
process.once('SIGTERM', () => void worker.close(5_000).then(() => process.exit(0)))
