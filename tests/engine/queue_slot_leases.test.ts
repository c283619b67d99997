/**
 * Slot leases through the engine (docs/flow-control.md "Slot leases"): a queue registered
 * with `slotLeases: true` takes its slots from a lease the engine holds in the store, with no
 * queue item per attempt. Checked here: the concurrency is exact across engines (counted by
 * the handlers, never assumed); the store counts the leased slots (a durable waiter is not
 * granted into them); priority within an engine; a waiter held here too long takes the
 * durable line (visible, suspended); a killed holder's slots return when its lease expires;
 * durable waiters go before a holder's own work from its next renewal on; every slot goes
 * back at close.
 */
import assert from 'node:assert/strict'
import type { Engine } from '@cairn/core'
import { FakeClock } from '@cairn/core/testing'
import { eachStore, type Env } from '../helpers/harness.ts'
import { Gate, until } from '../helpers/queue_gate.ts'

const LEASE_MS = 30_000

function register(engine: Engine, gate: Gate, concurrency: number): void {
  engine.registerQueue('carrier', { concurrency, slotLeases: true })
  engine.registerStep('call', gate.handler)
  engine.register('ship', 1, async (ctx, input: { name: string; priority?: number }) =>
    ctx.step('call', input.name, {
      queue: 'carrier',
      ...(input.priority === undefined ? {} : { priority: input.priority }),
    }),
  )
}

async function stats(env: Env, engine: Engine) {
  const [found] = await engine.store.queueStats(['carrier'], env.clock.now())
  assert.ok(found !== undefined, 'the queue exists in the store')
  return found
}

async function allCompleted(engine: Engine, ids: readonly string[]): Promise<boolean> {
  const runs = await Promise.all(ids.map((id) => engine.getRun(id)))
  return runs.every((run) => run?.status === 'completed')
}

/** Opens handlers one at a time until every run has ended. */
async function drain(env: Env, engine: Engine, gate: Gate, ids: readonly string[]) {
  while (!(await allCompleted(engine, ids))) {
    await until(env, () => gate.blocked > 0, 'a handler runs')
    gate.openOne()
    await env.settle()
  }
}

eachStore('slot leases', (test) => {
  test('attempts take leased slots: no item in the store, the lease counted, all finish', async (env) => {
    const gate = new Gate()
    const engine = await env.engine({ concurrency: 20, leaseMs: LEASE_MS })
    register(engine, gate, 2)
    // Reads the store after the first engine closed it.
    const observer = await env.engine({ drive: false })
    observer.registerQueue('carrier', { concurrency: 2 })
    const ids: string[] = []
    for (let i = 0; i < 5; i++) ids.push((await engine.start('ship', { name: `r${i}` })).runId)
    await until(env, () => gate.blocked === 2, 'two handlers run')
    await env.settle()
    assert.equal(gate.blocked, 2, 'no third attempt starts')
    const during = await stats(env, engine)
    assert.deepEqual(
      { granted: during.granted, leased: during.leased, waiting: during.waiting },
      { granted: 0, leased: 2, waiting: 0 },
      'the slots are leased; the other attempts wait in memory, not as items',
    )
    await drain(env, engine, gate, ids)
    assert.equal(gate.maxRunning, 2, 'never more than two at once')
    assert.deepEqual([...gate.started].sort(), ['r0', 'r1', 'r2', 'r3', 'r4'], 'each ran once')
    await engine.close()
    const after = (await observer.queueStats()).find((q) => q.queue === 'carrier')
    assert.ok(after !== undefined)
    assert.deepEqual([after.granted, after.leased, after.waiting], [0, 0, 0], 'all given back')
  })

  test('a durable waiter is not granted into leased slots', async (env) => {
    const gate = new Gate()
    const leasing = await env.engine({ concurrency: 20, leaseMs: LEASE_MS })
    register(leasing, gate, 2)
    const other = await env.engine({ concurrency: 20, leaseMs: LEASE_MS })
    // The same queue without leases on the second engine: its attempts are items.
    other.registerQueue('carrier', { concurrency: 2 })
    other.registerStep('call', gate.handler)
    other.register('ship-items', 1, async (ctx, input: { name: string }) =>
      ctx.step('call', input.name, { queue: 'carrier' }),
    )
    const a = await leasing.start('ship', { name: 'a' })
    const b = await leasing.start('ship', { name: 'b' })
    await until(env, () => gate.blocked === 2, 'two leased attempts run')
    const c = await other.start('ship-items', { name: 'c' })
    await until(env, async () => (await stats(env, other)).waiting === 1, 'the item waits')
    await env.settle()
    assert.equal(gate.blocked, 2, 'the item is not granted beside the leased slots')
    assert.equal(gate.maxRunning, 2)
    gate.openOne()
    gate.openOne()
    await until(env, () => allCompleted(leasing, [a.runId, b.runId]), 'a and b finish')
    assert.deepEqual(gate.started, ['a', 'b'], 'c still waits: the slots are leased')
    // Idle slots go back shortly (the holder has no more demand), and the waiter is granted;
    // its run, held in memory on the other engine, sees the grant when its hold ends.
    await env.skip(1_000)
    assert.equal((await stats(env, other)).leased, 0, 'the idle slots went back')
    await env.skip(10_000)
    await drain(env, leasing, gate, [a.runId, b.runId, c.runId])
    assert.equal(gate.maxRunning, 2, 'never more than two at once')
    assert.deepEqual([...gate.started].sort(), ['a', 'b', 'c'])
  })

  test('within an engine, waiters go by priority, then arrival', async (env) => {
    const gate = new Gate()
    const engine = await env.engine({ concurrency: 20, leaseMs: LEASE_MS })
    register(engine, gate, 1)
    const ids = [(await engine.start('ship', { name: 'holder' })).runId]
    await until(env, () => gate.blocked === 1, 'the holder runs')
    for (const [name, priority] of [
      ['low', -5],
      ['mid1', 0],
      ['high', 5],
      ['mid2', 0],
    ] as const) {
      ids.push((await engine.start('ship', { name, priority })).runId)
      await env.settle()
    }
    await drain(env, engine, gate, ids)
    assert.deepEqual(gate.started, ['holder', 'high', 'mid1', 'mid2', 'low'])
    assert.equal(gate.maxRunning, 1)
  })

  test('a waiter held past holdTimersUpToMs takes the durable line: visible, then served', async (env) => {
    const gate = new Gate()
    const engine = await env.engine({ concurrency: 20, leaseMs: LEASE_MS })
    register(engine, gate, 1)
    const ids = [(await engine.start('ship', { name: 'holder' })).runId]
    await until(env, () => gate.blocked === 1, 'the holder runs')
    ids.push((await engine.start('ship', { name: 'later' })).runId)
    await env.settle()
    assert.equal((await stats(env, engine)).waiting, 0, 'held in memory first')
    await env.skip(6_000)
    await until(env, async () => (await stats(env, engine)).waiting === 1, 'an item waits')
    await drain(env, engine, gate, ids)
    assert.deepEqual(gate.started, ['holder', 'later'])
    assert.equal(gate.maxRunning, 1)
  })

  test("a killed holder's slots return when its lease expires; its run is taken over", async (env) => {
    const ledger: string[] = []
    const hang = () => new Promise<never>(() => {})
    const setUp = (engine: Engine, frozen: boolean) => {
      engine.registerQueue('carrier', { concurrency: 1, slotLeases: true })
      engine.registerStep('call', (name: string) => {
        ledger.push(`${engine.instanceId}:${name}`)
        return frozen ? hang() : name
      })
      engine.register('ship', 1, async (ctx, name: string) =>
        ctx.step('call', name, { queue: 'carrier' }),
      )
    }
    // The first engine's clock never moves: it renews nothing, as if it died mid-attempt.
    const first = await env.engine({ leaseMs: 10_000, clock: new FakeClock(env.clock.now()) })
    setUp(first, true)
    const a = await first.start('ship', 'a')
    await env.settle()
    const second = await env.engine({ leaseMs: 10_000 })
    setUp(second, false)
    const b = await second.start('ship', 'b')
    await env.settle()
    assert.deepEqual(ledger, ['engine-1:a'], 'b waits: the frozen holder keeps the slot')
    assert.equal((await stats(env, second)).leased, 1, "the dead engine's lease")
    await env.skip(20_000)
    assert.equal((await second.waitForRun(a.runId, { timeoutMs: 5_000 })).status, 'completed')
    assert.equal((await second.waitForRun(b.runId, { timeoutMs: 5_000 })).status, 'completed')
    // After the lease lapsed: a ran again on the takeover (at least once) and b ran, one at a
    // time (b waited durably first: it goes first).
    assert.deepEqual(ledger.slice(0, 1), ['engine-1:a'])
    assert.deepEqual([...ledger.slice(1)].sort(), ['engine-2:a', 'engine-2:b'])
    assert.equal(ledger.length, 3)
  })

  test("durable waiters go before a holder's own work from its next renewal on", async (env) => {
    const gate = new Gate()
    const first = await env.engine({ concurrency: 20, leaseMs: LEASE_MS })
    register(first, gate, 1)
    const second = await env.engine({ concurrency: 20, leaseMs: LEASE_MS })
    register(second, gate, 1)
    const ids = [(await first.start('ship', { name: 'first-1' })).runId]
    await until(env, () => gate.blocked === 1, 'the first engine holds the slot')
    ids.push((await second.start('ship', { name: 'second-1' })).runId)
    await env.settle()
    // The second engine's waiter goes durable after holdTimersUpToMs (half the lease).
    await env.skip(LEASE_MS / 2 + 1_000)
    await until(env, async () => (await stats(env, second)).waiting === 1, 'a durable waiter')
    // The first engine's next renewal sees it: its own next attempt takes the durable line too.
    await env.skip(LEASE_MS / 3 + 1_000)
    ids.push((await first.start('ship', { name: 'first-2' })).runId)
    await env.settle()
    gate.openOne()
    await until(env, () => gate.started.includes('second-1'), 'the durable waiter runs next')
    gate.openOne()
    // first-2 waits on the first engine for a grant the second engine's write made: it sees it
    // when its hold in memory ends (holdTimersUpToMs) — the durable line across engines.
    await env.skip(LEASE_MS / 2 + 1_000)
    await drain(env, first, gate, ids)
    assert.deepEqual(gate.started, ['first-1', 'second-1', 'first-2'])
    assert.equal(gate.maxRunning, 1)
  })

  test('slotLeases is refused with a rate, and when not a boolean', async (env) => {
    const engine = await env.engine()
    assert.throws(
      () =>
        engine.registerQueue('rated', {
          concurrency: 1,
          rateLimit: { limit: 1, periodMs: 1000 },
          slotLeases: true,
        }),
      { code: 'E_INVALID_ARGUMENT' },
    )
    assert.throws(
      () => engine.registerQueue('odd', { concurrency: 1, slotLeases: 'yes' as never }),
      { code: 'E_INVALID_ARGUMENT' },
    )
  })
})
