/**
 * A worker process for the remote-step fault tests: serves step `slow`, whose body appends
 * `start <runId>` to a ledger file, works for a while, then appends `end <runId>` and returns.
 * Usage: node worker_process.ts <redisUrl> <prefix> <ledger> <workMs>
 * Prints `ready` once it takes tasks. SIGKILL is the point; SIGTERM drains.
 */
import { appendFileSync } from 'node:fs'
import { bullmqTransport } from '@cairn/bullmq'
import { createWorker } from '@cairn/worker'

const [redisUrl = '', prefix = '', ledger = '', workMs = '1000'] = process.argv.slice(2)
const transport = bullmqTransport({
  connection: redisUrl,
  prefix,
  stalledIntervalMs: 250,
  pollIntervalMs: 200,
})

const worker = createWorker({
  transport: transport.worker(),
  holdMs: 1_500,
  concurrency: 4,
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
