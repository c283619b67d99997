/**
 * docs/flow-control.md's rate-limit example, runnable: nine payments on a gateway that takes
 * three calls per 300 ms. Slots are plenty (concurrency 9); the rate alone spaces the calls —
 * three at once, then three more each time the oldest grant of the interval has aged — and no
 * 300 ms interval ever holds more than three grants.
 */
import assert from 'node:assert/strict'
import { Engine, MemoryStore, silentLogger } from '@cairn/core'

const started: number[] = []
const engine = new Engine({
  store: new MemoryStore(),
  logger: silentLogger,
  queues: { payments: { concurrency: 9, rateLimit: { limit: 3, periodMs: 300 } } },
})
engine.registerStep('charge', async (cents: number) => {
  started.push(Date.now())
  return `charged ${cents}`
})
engine.register('pay', 1, async (ctx, cents: number) =>
  ctx.step('charge', cents, { queue: 'payments' }),
)
await engine.startDriving()

const t0 = Date.now()
const runs = await Promise.all(
  Array.from({ length: 9 }, (_, i) => engine.start('pay', 100 * (i + 1))),
)
// While the first three calls run, the other six wait for the rate, not for a slot.
const [payments] = await engine.queueStats()
assert.equal(payments?.rateLimit?.limit, 3)
for (const { runId } of runs)
  assert.equal((await engine.waitForRun(runId, { timeoutMs: 10_000 })).status, 'completed')

started.sort((a, b) => a - b)
// Three periods' worth of grants: the last call starts two periods after the first.
assert.ok((started[8] as number) - (started[0] as number) >= 2 * 300 - 50, 'spaced by the rate')
console.log(
  `9 payments in ${Date.now() - t0} ms; starts at +${started.map((t) => t - (started[0] as number)).join(', +')} ms`,
)
await engine.close()
