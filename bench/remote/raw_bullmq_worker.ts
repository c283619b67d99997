/**
 * The worker process of `raw-bullmq`: each job computes the workload's step and enqueues the
 * next step of its chain, in the same queue; the last step publishes the chain's end. No store, no
 * durability beyond Redis: the hardware-and-Redis reference for remote steps.
 *   node bench/remote/raw_bullmq_worker.ts <redisUrl> <prefix> <concurrency>
 */
import { Queue, Worker } from 'bullmq'
import { Redis } from 'ioredis'

const [redisUrl = '', prefix = '', concurrency = '50'] = process.argv.slice(2)
const connection = new Redis(redisUrl, { maxRetriesPerRequest: null })
const queue = new Queue('chain', { connection, prefix })
const notices = new Redis(redisUrl)

interface Step {
  id: number
  steps: number
  i: number
  acc: number
}

const worker = new Worker<Step>(
  'chain',
  async (job) => {
    const { id, steps, i, acc } = job.data
    const v = acc + i
    if (i + 1 < steps) {
      await queue.add('step', { id, steps, i: i + 1, acc: v }, { removeOnComplete: true })
      return null
    }
    // The chain's end, told to the runner over pub/sub (QueueEvents' stream lagged under load).
    await notices.publish(`${prefix}:done`, String(id))
    return v
  },
  {
    connection: new Redis(redisUrl, { maxRetriesPerRequest: null }),
    prefix,
    concurrency: Number(concurrency),
    removeOnComplete: { count: 0 },
  },
)
await worker.waitUntilReady()
process.stdout.write('ready\n')
process.once('SIGTERM', () => void worker.close().then(() => process.exit(0)))
