/**
 * docs/flow-control.md's slot lease example, runnable: 100 runs of five calls each through a
 * queue of four with `slotLeases: true`. The engine leases the queue's four slots in the store
 * and hands them to its own calls in memory — never more than four at once, no queue item
 * written per call — then gives them back when it closes.
 */
import assert from 'node:assert/strict'
import { Engine, MemoryStore, silentLogger } from '@cairn/core'

const store = new MemoryStore()
let inFlight = 0
let most = 0
let calls = 0

const engine = new Engine({
  store,
  logger: silentLogger,
  queues: { enrich: { concurrency: 4, slotLeases: true } },
})
engine.registerStep('lookUp', async (n: number) => {
  inFlight += 1
  most = Math.max(most, inFlight)
  calls += 1
  await new Promise((resolve) => setTimeout(resolve, 1)) // the enrichment API
  inFlight -= 1
  return n * 2
})
engine.register('enrich', 1, async (ctx, id: number) => {
  let total = 0
  for (let i = 0; i < 5; i++) total += await ctx.step<number>('lookUp', id + i, { queue: 'enrich' })
  return total
})
await engine.startDriving()

const runs = await Promise.all(Array.from({ length: 100 }, (_, id) => engine.start('enrich', id)))
// While they run, the store shows the engine's lease, and no step waiting as an item.
const [during] = await store.queueStats(['enrich'], Date.now())
for (const { runId } of runs)
  assert.equal((await engine.waitForRun(runId, { timeoutMs: 30_000 })).status, 'completed')
await engine.close()
const [after] = await store.queueStats(['enrich'], Date.now())

assert.ok(most <= 4, `never more than four calls at once (saw ${most})`)
assert.equal(calls, 500, 'each call made once')
assert.equal(after?.leased, 0, 'the lease went back at close')
console.log(
  `500 calls, at most ${most} at once; while running the store showed ${during?.leased} leased slots and ${during?.waiting} waiting items; after close ${after?.leased} leased`,
)
