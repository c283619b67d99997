/**
 * Slot leases at their edges (found by review; each failed before its fix): deploys of
 * different concurrency sharing a queue (a renewal under the lower one must not drop slots
 * its attempts hold: never more at once than the larger concurrency, as with items alone),
 * and an engine closing right after its last attempt (its slots go back and the queue's
 * durable waiter is granted by the close, not by the next sweep).
 */
import assert from 'node:assert/strict'
import type { Engine } from '@cairn/core'
import { eachStore, type Env } from '../helpers/harness.ts'
import { Gate, until } from '../helpers/queue_gate.ts'

const LEASE_MS = 30_000

function setUp(engine: Engine, gate: Gate, concurrency: number, slotLeases: boolean): void {
  engine.registerQueue('carrier', { concurrency, slotLeases })
  engine.registerStep('call', gate.handler)
  engine.register('ship', 1, async (ctx, name: string) =>
    ctx.step('call', name, { queue: 'carrier' }),
  )
}

/** A new deploy (concurrency 2) beside an old one (4); returns the most running at once. */
async function twoDeploys(env: Env, newLeases: boolean, oldLeases: boolean): Promise<number> {
  const gate = new Gate()
  const lowered = await env.engine({ concurrency: 20, leaseMs: LEASE_MS })
  setUp(lowered, gate, 2, newLeases)
  const old = await env.engine({ concurrency: 20, leaseMs: LEASE_MS })
  setUp(old, gate, 4, oldLeases)
  await lowered.start('ship', 'new-1')
  await lowered.start('ship', 'new-2')
  await until(env, () => gate.blocked === 2, 'the new deploy runs two')
  for (const name of ['old-1', 'old-2']) await old.start('ship', name)
  await until(env, () => gate.blocked === 4, 'the old deploy runs two more (its concurrency: 4)')
  // Renewals under both concurrencies, then more work for the old deploy.
  await env.skip(LEASE_MS / 3 + 1_000)
  await env.skip(LEASE_MS / 3 + 1_000)
  for (const name of ['old-3', 'old-4']) await old.start('ship', name)
  await env.settle()
  await new Promise((resolve) => setTimeout(resolve, 50))
  await env.settle()
  const most = gate.maxRunning
  gate.openAll()
  return most
}

eachStore('slot leases at the edges', (test) => {
  test('deploys of concurrency 2 (leases) and 4 (items): never more than 4 at once', async (env) => {
    const most = await twoDeploys(env, true, false)
    assert.ok(most <= 4, `ran ${most} at once`)
  })

  test('deploys of concurrency 2 and 4, both leasing: never more than 4 at once', async (env) => {
    const most = await twoDeploys(env, true, true)
    assert.ok(most <= 4, `ran ${most} at once`)
  })

  test('closing right after its last attempt, an engine grants the durable waiter', async (env) => {
    const gate = new Gate()
    const closing = await env.engine({ concurrency: 20, leaseMs: LEASE_MS })
    setUp(closing, gate, 1, true)
    // Its sweep would grant the waiter within a minute: the test needs it at once.
    const other = await env.engine({ concurrency: 20, leaseMs: LEASE_MS })
    setUp(other, gate, 1, false)
    const a = await closing.start('ship', 'a')
    await until(env, () => gate.blocked === 1, 'a runs')
    await other.start('ship', 'b')
    await env.skip(6_000) // b's hold in memory ends: its run suspends, an item in the store
    const waits = async () =>
      (await other.store.queueStats(['carrier'], env.clock.now()))[0]?.waiting === 1
    await until(env, waits, 'b waits durably')
    gate.openAll()
    await until(env, async () => (await closing.getRun(a.runId))?.status === 'completed', 'a ends')
    await closing.close()
    // Granted by the close itself (no clock tick: no renewal, no sweep): b holds the slot.
    const [after] = await other.store.queueStats(['carrier'], env.clock.now())
    assert.deepEqual([after?.granted, after?.leased, after?.waiting], [1, 0, 0])
  })
})
