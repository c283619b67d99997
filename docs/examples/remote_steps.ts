/**
 * docs/remote-steps.md's example, runnable: a step placed on a transport runs on a worker, not
 * in the engine. Engine and worker share one process here (the memory transport); in
 * production they are separate processes on a broker (@cairn/bullmq).
 */
import assert from 'node:assert/strict'
import { defineStep, Engine, FatalError, MemoryStore, silentLogger } from '@cairn/core'
import { createMemoryTransport } from '@cairn/core/testing'
import { createWorker } from '@cairn/worker'

// One definition, shared by the engine (which dispatches it) and the worker (which runs it).
const renderInvoice = defineStep(
  'render-invoice',
  async (order: { id: string; total: number }, step) => {
    if (order.total < 0) throw new FatalError('a negative total cannot be invoiced')
    // step.idempotencyKey is the same on every attempt and redelivery: pass it on.
    return { pdf: `invoice-${order.id}.pdf`, key: step.idempotencyKey }
  },
  { transport: 'remote', retries: 3, timeoutMs: 30_000 },
)

const transport = createMemoryTransport()
const engine = new Engine({
  store: new MemoryStore(),
  logger: silentLogger,
  transports: { remote: transport.engine() },
})
engine.registerStep(renderInvoice)
engine.register('invoice', 1, async (ctx, order: { id: string; total: number }) => {
  const invoice = await ctx.step(renderInvoice, order) // the run waits, holding no memory
  return ctx.localStep('email', () => `sent ${invoice.pdf}`)
})

const worker = createWorker({ transport: transport.worker(), steps: [renderInvoice] })
await worker.start()
await engine.startDriving()

const { runId } = await engine.start('invoice', { id: 'o-7', total: 42 })
const outcome = await engine.waitForRun(runId, { timeoutMs: 10_000 })
assert.deepEqual(outcome, { runId, status: 'completed', output: 'sent invoice-o-7.pdf' })
const [step] = await engine.getSteps(runId)
assert.equal(step?.kind, 'step')
assert.deepEqual(step?.output, { pdf: 'invoice-o-7.pdf', key: `${runId}/0` })

await worker.close()
await engine.close()
console.log(`run ${runId}: ${JSON.stringify(outcome.status === 'completed' && outcome.output)}`)
