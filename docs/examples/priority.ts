/**
 * docs/flow-control.md's run-priority example, runnable: orders started while no engine had a
 * free slot are claimed VIP first, then by age; one claim slot in eight goes to the order due
 * longest, so the bulk re-index queued first is not starved behind a stream of VIP orders.
 */
import assert from 'node:assert/strict'
import { Engine, MemoryStore, silentLogger } from '@cairn/core'

const store = new MemoryStore()
const ran: string[] = []
function register(engine: Engine): void {
  engine.register(
    'order',
    1,
    async (ctx, order: { id: string }) => {
      await ctx.localStep('fulfil', () => void ran.push(order.id))
      return order.id
    },
    { priority: 0 }, // the default for runs of this workflow; a start may give its own
  )
}

// The web tier starts runs; it does not run them (no free slot there).
const web = new Engine({ store, logger: silentLogger, instanceId: 'web' })
register(web)
await web.start('order', { id: 'reindex' }, { runId: 'reindex', priority: -100 })
await new Promise((resolve) => setTimeout(resolve, 2))
for (let i = 1; i <= 9; i++) {
  const id = `vip-${i}`
  await web.start('order', { id }, { runId: id, priority: 100 })
  await new Promise((resolve) => setTimeout(resolve, 2))
}
await web.start('order', { id: 'standard' }, { runId: 'standard' }) // priority 0
assert.equal((await web.getRun('vip-1'))?.priority, 100)

// One worker, one run at a time: the claim order is the run order.
const worker = new Engine({ store, logger: silentLogger, instanceId: 'worker', concurrency: 1 })
register(worker)
await worker.startDriving()
for (const id of ['reindex', 'standard', 'vip-9']) await worker.waitForRun(id, { timeoutMs: 5_000 })
await worker.close()
await web.close()

// VIPs first; the eighth slot went to the run due longest (the re-index); then the rest.
assert.deepEqual(ran, [
  'vip-1',
  'vip-2',
  'vip-3',
  'vip-4',
  'vip-5',
  'vip-6',
  'vip-7',
  'reindex',
  'vip-8',
  'vip-9',
  'standard',
])
console.log(`claim order: ${ran.join(', ')}`)
