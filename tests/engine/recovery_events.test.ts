/**
 * `run:recovered`: an engine that claims a run still leased says from whom — its own instance
 * id (a restart under the same id reclaims at once) or another engine whose lease expired.
 */
import assert from 'node:assert/strict'
import type { EngineEvents, WorkflowContext } from '@cairn/core'
import { FakeClock } from '@cairn/core/testing'
import { eachStore } from '../helpers/harness.ts'

// A step that never finishes: its engine is frozen there, as if paused or dead.
const hang = () => new Promise<never>(() => {})

const body = (freeze: boolean) => async (ctx: WorkflowContext) =>
  ctx.localStep('work', () => (freeze ? hang() : 'done'))

eachStore('run:recovered', (test) => {
  test('another engine taking an expired lease reports a takeover', async (env) => {
    // The first engine's clock never moves: it never renews its lease.
    const first = await env.engine({ leaseMs: 10_000, clock: new FakeClock(env.clock.now()) })
    first.register('job', 1, body(true))
    const { runId } = await first.start('job', null)
    await env.settle()
    const second = await env.engine({ leaseMs: 10_000, drive: false })
    second.register('job', 1, body(false))
    const seen: Array<EngineEvents['run:recovered']> = []
    second.on('run:recovered', (event) => seen.push(event))
    first.on('run:recovered', () => assert.fail('the first engine recovers nothing'))
    await second.startDriving()
    await env.skip(5_000)
    assert.deepEqual(seen, [], 'nothing is recovered while the lease is valid')
    await env.skip(20_000)
    assert.equal((await second.waitForRun(runId, { timeoutMs: 5_000 })).status, 'completed')
    assert.deepEqual(seen, [
      { runId, workflow: 'job', version: '1', previousOwner: 'engine-1', kind: 'takeover' },
    ])
  })

  test('an engine restarted under the same instance id reports a reclaim', async (env) => {
    const first = await env.engine({ leaseMs: 60_000, clock: new FakeClock(env.clock.now()) })
    first.register('job', 1, body(true))
    const { runId } = await first.start('job', null)
    await env.settle()
    // Same instance id, lease far from expiry: reclaimOwned hands the run back at once.
    const restarted = await env.engine({ instanceId: 'engine-1', drive: false })
    restarted.register('job', 1, body(false))
    const seen: Array<EngineEvents['run:recovered']> = []
    restarted.on('run:recovered', (event) => seen.push(event))
    await restarted.startDriving()
    assert.equal((await restarted.waitForRun(runId, { timeoutMs: 5_000 })).status, 'completed')
    assert.deepEqual(seen, [
      { runId, workflow: 'job', version: '1', previousOwner: 'engine-1', kind: 'reclaimed' },
    ])
  })

  test('new work and due timers are not recoveries', async (env) => {
    const engine = await env.engine({ drive: false })
    engine.register('nap', 1, async (ctx) => {
      await ctx.sleep(1_000)
      return 'rested'
    })
    let recovered = 0
    engine.on('run:recovered', () => (recovered += 1))
    await engine.startDriving()
    const { runId } = await engine.start('nap', null)
    await env.skip(2_000)
    assert.equal((await engine.waitForRun(runId, { timeoutMs: 5_000 })).status, 'completed')
    assert.equal(recovered, 0)
  })
})
