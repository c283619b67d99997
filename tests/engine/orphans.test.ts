/**
 * Orphans: runs leased to an engine's instance id that nobody executes (the process holding
 * them died, or a read after the claim failed). A user resubmitting them (`engine.start` with
 * the same run id, the ordinary "retry after a crash") must have them claimed through the
 * store — epoch and turns bumped, history loaded — never run on the lease that was found:
 * a committed step never runs again.
 */
import assert from 'node:assert/strict'
import type { WorkflowContext } from '@cairn/core'
import { FakeClock, settle } from '@cairn/core/testing'
import { eachStore } from '../helpers/harness.ts'
import { HeldStore } from '../helpers/held_store.ts'
import { FlakyStore } from '../helpers/flaky_store.ts'
import { killable } from '../helpers/killable_store.ts'

const STEPS = ['a', 'b', 'c', 'd']
const hang = () => new Promise<never>(() => {})

/** A chain of four local steps that counts each body execution; `hangAt` never finishes. */
function chain(ran: Record<string, number>, hangAt?: string) {
  return async (ctx: WorkflowContext) => {
    const out: string[] = []
    for (const name of STEPS) {
      const body = () => (name === hangAt ? hang() : ((ran[name] = (ran[name] ?? 0) + 1), name))
      out.push(await ctx.localStep(name, body))
    }
    return out
  }
}

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await check()) return
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  throw new Error(`timed out waiting until ${what}`)
}

eachStore('orphaned runs', (test) => {
  test('a restarted engine resubmitted its runs while its first claim is in flight replays them: no committed step runs again', async (env) => {
    const ran: Record<string, number> = {}
    // The first process runs a, b, c and is killed inside d: it does nothing more.
    const doomed = killable(env.handle.reopen())
    const first = await env.engine({
      instanceId: 'node-a',
      leaseMs: 60_000,
      clock: new FakeClock(env.clock.now()),
      store: doomed.store,
    })
    first.register('chain', 1, chain(ran, 'd'))
    const { runId } = await first.start('chain', 7, { runId: 'chain-1' })
    await until(async () => (await first.getSteps(runId)).length === 3, 'a, b, c are recorded')
    assert.deepEqual(ran, { a: 1, b: 1, c: 1 })
    await doomed.kill()

    // Restart under the same id. Its first claim waits at the store's door while the user
    // resubmits the run — the run is still `running`, leased to `node-a`, on its first turn.
    const store = new HeldStore(env.handle.reopen())
    const restarted = await env.engine({
      instanceId: 'node-a',
      leaseMs: 60_000,
      store,
      drive: false,
    })
    restarted.register('chain', 1, chain(ran))
    const claim = store.holdNextClaim()
    await restarted.startDriving()
    await claim.reached
    const found = await restarted.getRun(runId)
    assert.equal(found?.status, 'running')
    assert.equal(found?.turns, 1)
    assert.deepEqual(await restarted.start('chain', 7, { runId: 'chain-1' }), {
      runId,
      existing: true,
    })
    await settle(20)
    assert.deepEqual(ran, { a: 1, b: 1, c: 1 }, 'nothing ran on the lease the resubmit found')

    claim.release()
    assert.deepEqual(await restarted.waitForRun(runId, { timeoutMs: 5_000 }), {
      runId,
      status: 'completed',
      output: STEPS,
    })
    assert.deepEqual(ran, { a: 1, b: 1, c: 1, d: 1 }, 'each step ran once')
    const run = await restarted.store.getRun(runId)
    assert.equal(run?.turns, 2, 'executed through a claim')
    assert.equal(run?.leaseEpoch, 2)
  })

  test('a resubmitted orphan whose lease still holds is handed back and claimed at once, history and all', async (env) => {
    const ran: Record<string, number> = {}
    const store = new FlakyStore(env.handle.reopen())
    // No run cache: the wake's claim loads the history (the read this test makes fail).
    const engine = await env.engine({
      instanceId: 'node-a',
      leaseMs: 60_000,
      store,
      maxCachedRuns: 0,
    })
    const recovered: string[] = []
    engine.on('run:recovered', (e) => recovered.push(`${e.runId} ${e.kind} ${e.previousOwner}`))
    // a, b and c, then a durable sleep: the run suspends, and its next claim loads its history.
    engine.register('chain', 1, async (ctx: WorkflowContext) => {
      const out: string[] = []
      for (const name of STEPS) {
        if (name === 'd') await ctx.sleep('1m')
        out.push(await ctx.localStep(name, () => ((ran[name] = (ran[name] ?? 0) + 1), name)))
      }
      return out
    })
    const { runId } = await engine.start('chain', 7, { runId: 'chain-1' })
    await env.settle()
    assert.equal((await engine.getRun(runId))?.status, 'waiting')
    // The timer fires and the run is claimed, but reading its history fails: it is left
    // running, leased to this engine for another minute, executed by nobody.
    store.failNextLoads(1)
    await env.skip(60_000)
    const orphan = await engine.getRun(runId)
    assert.equal(orphan?.status, 'running')
    assert.equal(orphan?.leaseOwner, 'node-a')
    assert.equal(orphan?.turns, 2)
    assert.equal(engine.activeRuns, 0)

    // The resubmit hands it back under the epoch it found and a poll claims it: well before
    // the lease would have expired, and replaying a, b, c from the history.
    assert.equal((await engine.start('chain', 7, { runId: 'chain-1' })).existing, true)
    await env.settle()
    await env.skip(1)
    assert.deepEqual(await engine.waitForRun(runId, { timeoutMs: 5_000 }), {
      runId,
      status: 'completed',
      output: STEPS,
    })
    assert.deepEqual(ran, { a: 1, b: 1, c: 1, d: 1 })
    const run = await engine.getRun(runId)
    assert.equal(run?.turns, 3)
    assert.deepEqual(recovered, [`${runId} reclaimed node-a`])
  })

  test('a resubmit that reads a run its own claim just took, before the claim answered, leaves it to that claim', async (env) => {
    const ran: Record<string, number> = {}
    const client = await env.engine({ drive: false, instanceId: 'client' })
    client.register('chain', 1, chain(ran))
    await client.start('chain', 1, { runId: 'claimed-1' })
    const store = new HeldStore(env.handle.reopen())
    const engine = await env.engine({ instanceId: 'node-a', leaseMs: 60_000, store, drive: false })
    engine.register('chain', 1, chain(ran))
    // The claim applies — the run is leased to node-a, not claimable — but its answer waits.
    const claim = store.holdNextClaim('after')
    await engine.startDriving()
    await claim.reached
    const leased = await engine.store.getRun('claimed-1')
    assert.equal(leased?.leaseOwner, 'node-a')
    assert.ok((leased?.availableAt ?? 0) > env.clock.now())
    // The resubmit finds it leased to node-a and executed by nobody yet: it must not pull the
    // lease from under the turn the claim is about to start.
    assert.equal((await engine.start('chain', 1, { runId: 'claimed-1' })).existing, true)
    await settle(20)
    claim.release()
    assert.deepEqual(await engine.waitForRun('claimed-1', { timeoutMs: 5_000 }), {
      runId: 'claimed-1',
      status: 'completed',
      output: STEPS,
    })
    assert.deepEqual(ran, { a: 1, b: 1, c: 1, d: 1 })
    assert.equal((await engine.store.getRun('claimed-1'))?.turns, 1)
  })

  test('a resubmit of a run this engine is executing changes nothing', async (env) => {
    const ran: Record<string, number> = {}
    let finish!: () => void
    const gate = new Promise<void>((resolve) => (finish = resolve))
    const engine = await env.engine({ instanceId: 'node-a' })
    engine.register('chain', 1, async (ctx: WorkflowContext) => {
      const a = await ctx.localStep('a', () => ((ran.a = (ran.a ?? 0) + 1), 'a'))
      const b = await ctx.localStep('b', async () => {
        ran.b = (ran.b ?? 0) + 1
        await gate
        return 'b'
      })
      return [a, b]
    })
    const { runId } = await engine.start('chain', 1, { runId: 'busy-1' })
    await until(async () => ran.b === 1, 'b is running')
    // Resubmitted many times at once while b runs: no release, no second turn.
    const again = await Promise.all(
      Array.from({ length: 5 }, () => engine.start('chain', 1, { runId: 'busy-1' })),
    )
    assert.ok(again.every((r) => r.existing))
    await settle(20)
    finish()
    assert.deepEqual(await engine.waitForRun(runId, { timeoutMs: 5_000 }), {
      runId,
      status: 'completed',
      output: ['a', 'b'],
    })
    assert.deepEqual(ran, { a: 1, b: 1 })
    const run = await engine.store.getRun(runId)
    assert.equal(run?.turns, 1)
    assert.equal(run?.leaseEpoch, 1)
  })
})
