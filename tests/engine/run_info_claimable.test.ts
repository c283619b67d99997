import assert from 'node:assert/strict'
import type { WorkflowContext } from '@cairn/core'
import { eachStore } from '../helpers/harness.ts'

// RunInfo.claimableAt is what `durable:runs --stale` reads: when a driving engine may claim
// the run. Each status maps it from a different moment, so each is checked.
eachStore('RunInfo.claimableAt', (test) => {
  test('pending: since creation; running: the lease expiry; waiting: the wake time; finished: null', async (env) => {
    const starter = await env.engine({ drive: false, instanceId: 'starter' })
    let openGate: () => void = () => {}
    const gate = new Promise<void>((resolve) => (openGate = resolve))
    const body = async (ctx: WorkflowContext) => {
      await ctx.localStep('work', () => gate)
      await ctx.sleep('1h')
      return 'done'
    }
    starter.register('job', 1, body)
    const createdAt = env.clock.now()
    const { runId } = await starter.start('job', null)
    const pending = await starter.getRun(runId)
    assert.equal(pending?.status, 'pending')
    assert.equal(pending?.claimableAt?.getTime(), createdAt)

    const worker = await env.engine({ instanceId: 'worker', leaseMs: 30_000, drive: false })
    worker.register('job', 1, body)
    const claimedAt = env.clock.now()
    await worker.startDriving()
    await env.settle()
    const running = await starter.getRun(runId)
    assert.equal(running?.status, 'running')
    assert.equal(running?.claimableAt?.getTime(), claimedAt + 30_000)

    openGate()
    await env.settle()
    const waiting = await starter.getRun(runId)
    assert.equal(waiting?.status, 'waiting')
    assert.ok(waiting?.wakeAt !== null)
    assert.equal(waiting?.claimableAt?.getTime(), waiting?.wakeAt?.getTime())

    await env.skip(3_600_000)
    assert.equal((await worker.waitForRun(runId, { timeoutMs: 5_000 })).status, 'completed')
    assert.equal((await starter.getRun(runId))?.claimableAt, null)
  })
})
