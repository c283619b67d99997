/**
 * The run cache (engine/run_cache.ts, docs/run-cache.md): a run that suspends goes on from its
 * paused body when this engine claims it next — the body is entered once, not once per wake —
 * and never when the claim shows anything but messages changed the run since (another engine
 * ran it, an operator cancelled it): then the run replays from the store, and every step still
 * runs once.
 */
import assert from 'node:assert/strict'
import type { Engine } from '@cairn/core'
import type { StateStore, StoreOp } from '@cairn/core/contracts'
import { eachStore } from '../helpers/harness.ts'

const HOUR = 3_600_000

/** A loop of (step, sleep 1h) × `rounds`, counting body entries and step runs. */
function registerLoop(engine: Engine, counts: { entries: number; steps: number[] }, rounds = 3) {
  engine.register('loop', 1, async (ctx) => {
    counts.entries++
    let sum = 0
    for (let i = 0; i < rounds; i++) {
      sum += await ctx.localStep(`s${i}`, () => {
        counts.steps.push(i)
        return i + 1
      })
      await ctx.sleep('1h')
    }
    return sum
  })
}

function outputOf(outcome: unknown): unknown {
  return (outcome as { output?: unknown }).output
}

async function statusOf(engine: Engine, runId: string): Promise<string | undefined> {
  return (await engine.getRun(runId))?.status
}

eachStore('run cache', (test) => {
  test('a run that suspends and wakes on this engine enters its body once; every step runs once', async (env) => {
    const engine = await env.engine()
    const counts = { entries: 0, steps: [] as number[] }
    registerLoop(engine, counts)
    const { runId } = await engine.start('loop', null)
    for (let i = 0; i < 3; i++) await env.skip(HOUR)
    const outcome = await engine.waitForRun(runId, { timeoutMs: 5_000 })
    assert.deepEqual(outcome, { runId, status: 'completed', output: 6 })
    assert.deepEqual(counts.steps, [0, 1, 2])
    assert.equal(counts.entries, 1)
    // The history is the one a replaying engine writes: positions dense, each step once.
    const steps = await engine.getSteps(runId)
    assert.deepEqual(
      steps.map((s) => `${s.seq}:${s.kind}:${s.status}`),
      ['0:local:completed', '1:sleep:completed', '2:local:completed', '3:sleep:completed'].concat([
        '4:local:completed',
        '5:sleep:completed',
      ]),
    )
  })

  test('maxCachedRuns: 0 replays the whole history at every wake', async (env) => {
    const engine = await env.engine({ maxCachedRuns: 0 })
    const counts = { entries: 0, steps: [] as number[] }
    registerLoop(engine, counts)
    const { runId } = await engine.start('loop', null)
    for (let i = 0; i < 3; i++) await env.skip(HOUR)
    assert.equal((await engine.waitForRun(runId, { timeoutMs: 5_000 })).status, 'completed')
    assert.deepEqual(counts.steps, [0, 1, 2])
    assert.equal(counts.entries, 4)
  })

  test('signals and children reach a resumed body: each wait gets its message once', async (env) => {
    const engine = await env.engine()
    let entries = 0
    let childRuns = 0
    engine.register('kid', 1, async (ctx, n: number) => {
      await ctx.sleep(`${n}h`)
      return ctx.localStep('square', () => {
        childRuns++
        return n * n
      })
    })
    engine.register('parent', 1, async (ctx) => {
      entries++
      const first = await ctx.waitForSignal<string>('go')
      const kids = [1, 2, 3].map((n) => ctx.startChild<number>('kid', n))
      const squares: number[] = []
      for (const kid of kids) squares.push(await kid.result())
      const second = await ctx.waitForSignal<string>('go')
      return { first, second, squares }
    })
    const { runId } = await engine.start('parent', null)
    await env.settle()
    assert.equal(await statusOf(engine, runId), 'waiting')
    await engine.signal({ runId, name: 'go' }, 'one')
    for (let i = 0; i < 3; i++) await env.skip(HOUR) // the children finish one an hour
    await env.settle()
    assert.equal(await statusOf(engine, runId), 'waiting')
    await engine.signal({ runId, name: 'go' }, 'two')
    const outcome = await engine.waitForRun(runId, { timeoutMs: 5_000 })
    assert.deepEqual(outputOf(outcome), { first: 'one', second: 'two', squares: [1, 4, 9] })
    assert.equal(childRuns, 3)
    assert.equal(entries, 1)
  })

  test('broadcast events reach a resumed body; a timed-out event wait times out there', async (env) => {
    const engine = await env.engine()
    let entries = 0
    engine.register('listen', 1, async (ctx) => {
      entries++
      const got: unknown[] = []
      for (let i = 0; i < 3; i++) {
        const event = ctx.waitForEvent<{ n: number }>('tick', { timeoutMs: HOUR })
        got.push(await event.catch((error: { code?: string }) => error.code))
        // The next wait begins later than the event it follows (one published at its very
        // start would reach it too).
        await ctx.sleep('1m')
      }
      return got
    })
    const { runId } = await engine.start('listen', null)
    await env.settle()
    assert.equal(await statusOf(engine, runId), 'waiting')
    await engine.publishEvent('tick', { n: 1 })
    await env.settle()
    await env.skip(2 * HOUR) // the second wait times out
    await engine.publishEvent('tick', { n: 3 })
    await env.skip(HOUR)
    const outcome = await engine.waitForRun(runId, { timeoutMs: 5_000 })
    assert.deepEqual(outputOf(outcome), [{ n: 1 }, 'E_EVENT_TIMEOUT', { n: 3 }])
    assert.equal(entries, 1)
  })

  test('a run another engine moved on meanwhile is not resumed from the stale cache: it replays', async (env) => {
    // Engine a runs the run first and caches it; engine b takes its next turn (a's only slot is
    // busy), runs the next step and suspends; a claims it after that and must not go on from
    // its cached body (that would run step 1 again).
    const a = await env.engine({ concurrency: 1 })
    const b = await env.engine()
    const counts = { entries: 0, steps: [] as number[] }
    const entriesOn = new Map<Engine, number>()
    for (const engine of [a, b]) {
      engine.register('loop', 1, async (ctx) => {
        entriesOn.set(engine, (entriesOn.get(engine) ?? 0) + 1)
        counts.entries++
        let sum = 0
        for (let i = 0; i < 3; i++) {
          sum += await ctx.localStep(`s${i}`, () => {
            counts.steps.push(i)
            return i + 1
          })
          await ctx.sleep('1h')
        }
        return sum
      })
      engine.register('blocker', 1, async (ctx) => ctx.localStep('hold', () => gate.promise))
    }
    const gate = Promise.withResolvers<string>()
    await b.drain(1_000) // b takes nothing until the run waits in a's cache
    const { runId } = await a.start('loop', null)
    await env.settle()
    assert.equal(await statusOf(a, runId), 'waiting')
    assert.equal(entriesOn.get(a), 1)
    const blocker = await a.start('blocker', null) // a's only slot is busy from here
    await env.settle()
    await b.startDriving()
    await env.skip(HOUR)
    assert.equal(await statusOf(a, runId), 'waiting')
    assert.deepEqual(counts.steps, [0, 1])
    assert.equal(entriesOn.get(b), 1)
    await b.close() // a takes the rest
    gate.resolve('done')
    assert.equal((await a.waitForRun(blocker.runId, { timeoutMs: 5_000 })).status, 'completed')
    for (let i = 0; i < 2; i++) await env.skip(HOUR)
    const outcome = await a.waitForRun(runId, { timeoutMs: 5_000 })
    assert.deepEqual(outcome, { runId, status: 'completed', output: 6 })
    assert.deepEqual(counts.steps, [0, 1, 2])
    // a dropped its stale turn and replayed once, then resumed its new one.
    assert.equal(entriesOn.get(a), 2)
  })

  test('a cached run cancelled meanwhile never goes on; a compensating cancel replays it to unwind', async (env) => {
    const engine = await env.engine()
    const log: string[] = []
    let entries = 0
    engine.register('trip', 1, async (ctx) => {
      entries++
      await ctx.localStep('book', () => log.push('book'), {
        compensate: () => void log.push('unbook'),
      })
      await ctx.sleep('1h')
      await ctx.localStep('pay', () => log.push('pay'))
    })
    const plain = await engine.start('trip', null)
    const saga = await engine.start('trip', null)
    await env.settle()
    await engine.cancel(plain.runId)
    await engine.cancel(saga.runId, { compensate: true })
    await env.skip(HOUR)
    assert.equal((await engine.waitForRun(plain.runId, { timeoutMs: 5_000 })).status, 'cancelled')
    assert.equal((await engine.waitForRun(saga.runId, { timeoutMs: 5_000 })).status, 'cancelled')
    await env.skip(HOUR)
    assert.deepEqual(log, ['book', 'book', 'unbook'])
    // The cancelled run never came back; the compensating one replayed (Turn.cancelledIn), so
    // its compensation takes the position after its last recorded one, as a replay's does.
    assert.equal(entries, 3)
    const steps = (await engine.getSteps(saga.runId)).map((s) => `${s.seq}:${s.name}:${s.status}`)
    assert.deepEqual(steps, ['0:book:completed', '1:sleep:waiting', '2:compensate:book:completed'])
  })

  test("a resumed wait's waiting record is written once, not again at each suspend", async (env) => {
    // A signal wait with a timeout stays open while a sleep loop beside it wakes the run every
    // hour: each resume re-evaluates the wait (it re-registers), and the suspends that follow
    // must not write its `waiting` record again.
    const waitingWrites = new Map<number, number>()
    const store = new Proxy(env.handle.store, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver) as unknown
        if (typeof value !== 'function') return value
        // The store's own methods on the store itself (private fields).
        if (prop !== 'applyBatch') return (value as (...args: unknown[]) => unknown).bind(target)
        return (ops: readonly StoreOp[], now: number) => {
          for (const op of ops)
            if (op.type === 'saveCheckpoint' && op.checkpoint.status === 'waiting')
              waitingWrites.set(op.checkpoint.seq, (waitingWrites.get(op.checkpoint.seq) ?? 0) + 1)
          return (value as StateStore['applyBatch']).call(target, ops, now)
        }
      },
    })
    const engine = await env.engine({ store })
    let entries = 0
    engine.register('watch', 1, async (ctx) => {
      entries++
      const ticks = (async () => {
        for (let i = 0; i < 4; i++) await ctx.sleep('1h')
        return 4
      })()
      const go = ctx.waitForSignal<string>('go', { timeoutMs: 10 * HOUR })
      return Promise.all([ticks, go])
    })
    const { runId } = await engine.start('watch', null)
    for (let i = 0; i < 4; i++) await env.skip(HOUR)
    await engine.signal({ runId, name: 'go' }, 'now')
    assert.deepEqual(outputOf(await engine.waitForRun(runId, { timeoutMs: 5_000 })), [4, 'now'])
    assert.equal(entries, 1)
    const steps = await engine.getSteps(runId)
    const signalSeq = steps.find((step) => step.kind === 'signal')?.seq
    assert.ok(signalSeq !== undefined, 'the signal wait has a position')
    assert.equal(waitingWrites.get(signalSeq), 1, 'its waiting record written by one suspend')
  })

  test('a full cache drops its least recently suspended run, which replays at its wake', async (env) => {
    const engine = await env.engine({ maxCachedRuns: 1 })
    const entries = new Map<string, number>()
    engine.register('nap', 1, async (ctx, name: string) => {
      entries.set(name, (entries.get(name) ?? 0) + 1)
      await ctx.sleep('1h')
      return ctx.localStep('wake', () => name)
    })
    const first = await engine.start('nap', 'first')
    await env.settle()
    const second = await engine.start('nap', 'second')
    await env.settle()
    await env.skip(HOUR)
    assert.equal(outputOf(await engine.waitForRun(first.runId, { timeoutMs: 5_000 })), 'first')
    assert.equal(outputOf(await engine.waitForRun(second.runId, { timeoutMs: 5_000 })), 'second')
    assert.deepEqual(Object.fromEntries(entries), { first: 2, second: 1 })
  })
})
