/**
 * docs/dead-letters.md, runnable: a payment run that fails starts its dead letter, and a run
 * whose engine keeps dying inside it ends `dead` after `maxRecoveryAttempts` takeovers — with a
 * dead letter too — instead of being recovered forever. A requeue brings the dead run back.
 *
 * An engine "dying" is played by an engine whose clock never moves: it stops inside the step
 * and never renews its lease, exactly what a killed process leaves behind.
 */
import assert from 'node:assert/strict'
import { Engine, MemoryStore, silentLogger, type DeadLetter } from '@cairn/core'
import { FakeClock } from '@cairn/core/testing'

const store = new MemoryStore()
const letters: string[] = []
let brokenDisk = true

function engineOn(options: { dying: boolean }): Engine {
  const engine = new Engine({
    store,
    logger: silentLogger,
    leaseMs: 200,
    maxRecoveryAttempts: 1,
    deadLetterWorkflow: 'alert-ops',
    ...(options.dying ? { clock: new FakeClock(Date.now()) } : {}),
  })
  engine.register('charge', 1, async (ctx, amount: number) => {
    await ctx.localStep(
      'charge',
      () => {
        throw new Error(`card declined for ${amount}`)
      },
      { retries: 0 },
    )
  })
  engine.register('export', 1, async (ctx, file: string) => {
    await ctx.localStep('write', () =>
      brokenDisk && options.dying ? new Promise<never>(() => {}) : `wrote ${file}`,
    )
    return file
  })
  // The dead-letter workflow: one durable run per failed or dead run, `dlq:<runId>`.
  engine.register('alert-ops', 1, async (ctx, dead: DeadLetter) => {
    await ctx.localStep('page', () => {
      letters.push(`${dead.status} ${dead.workflow}: ${dead.error.code ?? dead.error.message}`)
    })
  })
  return engine
}

// 1. A failed run starts its dead letter.
const live = engineOn({ dying: false })
await live.startDriving()
const charge = await live.start('charge', 42)
assert.equal((await live.waitForRun(charge.runId)).status, 'failed')
await live.waitForRun(`dlq:${charge.runId}`)
await live.close()

// 2. A run whose engine dies inside it: taken over once (maxRecoveryAttempts 1), then dead.
const first = engineOn({ dying: true })
const dying = [first]
await first.startDriving()
const exported = await first.start('export', 'orders.csv')
for (let takeover = 1; takeover <= 2; takeover++) {
  await new Promise((resolve) => setTimeout(resolve, 250)) // the lease lapses
  const next = engineOn({ dying: true })
  dying.push(next)
  await next.startDriving()
}
const healthy = engineOn({ dying: false })
await healthy.startDriving()
const dead = await healthy.waitForRun(exported.runId)
assert.equal(dead.status, 'dead')
await healthy.waitForRun(`dlq:${exported.runId}`)
assert.deepEqual(letters, ['failed charge: card declined for 42', 'dead export: E_RUN_DEAD'])

// 3. Fixed the disk: a requeue runs it again, its recovery count back at 0.
brokenDisk = false
await healthy.requeue(exported.runId)
assert.deepEqual(await healthy.waitForRun(exported.runId), {
  runId: exported.runId,
  status: 'completed',
  output: 'orders.csv',
})
await healthy.close()
for (const engine of dying) await engine.close(0)
console.log('dead letters: ok')
