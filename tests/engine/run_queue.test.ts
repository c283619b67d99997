/**
 * Whole runs on a queue (issue 15 point 2: start options `{ queue, priority }`, the workflow's
 * `queue`): a run holds one of the queue's slots from before its first step until it ends —
 * through its waits — so at most `concurrency` runs of a queue are under way, fleet-wide;
 * waiters go by the run's priority; an end, a cancel or a kill gives the slot back. What ran is
 * counted from a ledger the steps write, never assumed.
 */
import assert from 'node:assert/strict'
import { FakeClock } from '@cairn/core/testing'
import type { Engine, RunInfo } from '@cairn/core'
import { eachStore, type Env } from '../helpers/harness.ts'

/** Which runs are inside their body (between their first and last step), and the most at once. */
class Ledger {
  readonly entered: string[] = []
  inside = 0
  maxInside = 0

  enter = (name: string): string => {
    this.entered.push(name)
    this.inside += 1
    this.maxInside = Math.max(this.maxInside, this.inside)
    return name
  }

  leave = (name: string): string => {
    this.inside -= 1
    return name
  }
}

/** `imports`: each run enters, waits for its `go` signal (holding its slot), then leaves. */
function registerImports(engine: Engine, ledger: Ledger, concurrency: number): void {
  engine.registerQueue('imports', { concurrency })
  engine.registerStep('enter', ledger.enter)
  engine.registerStep('leave', ledger.leave)
  engine.register(
    'import',
    1,
    async (ctx, name: string) => {
      await ctx.step('enter', name)
      await ctx.waitForSignal('go')
      return ctx.step('leave', name)
    },
    { queue: 'imports' },
  )
}

/** `careful` (on `imports`): enters, then parks at a step not registered until the test says. */
function registerCareful(engine: Engine): void {
  engine.register(
    'careful',
    1,
    async (ctx, name: string) => {
      await ctx.step('enter', name)
      await ctx.step('missing', name)
      return ctx.step('leave', name)
    },
    { queue: 'imports' },
  )
}

async function until(env: Env, check: () => boolean | Promise<boolean>, what: string) {
  for (let i = 0; i < 200; i++) {
    if (await check()) return
    await env.settle()
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  assert.fail(`timed out waiting until ${what}`)
}

eachStore('whole runs on a queue', (test) => {
  test('at most `concurrency` runs are under way, holding their slot through waits', async (env) => {
    const ledger = new Ledger()
    const engine = await env.engine({ concurrency: 20 })
    registerImports(engine, ledger, 2)
    const ids: string[] = []
    for (let i = 0; i < 5; i++) ids.push((await engine.start('import', `r${i}`)).runId)
    await until(env, () => ledger.entered.length === 2, 'two runs enter')
    await env.skip(10_000) // past the in-memory hold: waiters suspend on the queue
    assert.deepEqual(ledger.entered, ['r0', 'r1'], 'only two of five entered')
    const runs = await Promise.all(ids.map((id) => engine.getRun(id)))
    assert.deepEqual(
      runs.map((run) => run?.status),
      ['waiting', 'waiting', 'waiting', 'waiting', 'waiting'],
      'the holders wait for their signal, the others for a slot',
    )
    assert.equal(runs[3]?.waitingOn, 'a slot of queue "imports"')
    assert.equal(runs[0]?.queue, 'imports', 'RunInfo.queue names it')
    const [held] = await engine.store.queueStats(['imports'], Date.now())
    assert.deepEqual([held?.granted, held?.waiting], [2, 3])
    // Let the runs go in the order they entered; each end frees a slot for the next waiter.
    for (let i = 0; i < ids.length; i++) {
      await until(env, () => ledger.entered.length > i, `run ${i + 1} enters`)
      const runId = ids[Number(ledger.entered[i]?.slice(1))] as string
      await engine.signal({ runId: runId, name: 'go' }, null)
      assert.equal((await engine.waitForRun(runId, { timeoutMs: 5_000 })).status, 'completed')
    }
    assert.deepEqual(ledger.entered, ['r0', 'r1', 'r2', 'r3', 'r4'], 'each entered once, in order')
    assert.equal(ledger.maxInside, 2, 'never more than two at once')
    const [after] = await engine.store.queueStats(['imports'], Date.now())
    assert.deepEqual([after?.granted, after?.waiting], [0, 0], 'every slot returned')
    const steps = await engine.getSteps(ids[0] as string)
    assert.deepEqual(
      steps.map((s) => s.name),
      ['enter', 'go', 'leave'],
      "the run's slot is not a step of its timeline",
    )
  })

  test('start options: { queue } per start, refused when malformed or not registered', async (env) => {
    const engine = await env.engine()
    const ledger = new Ledger()
    engine.registerQueue('solo', { concurrency: 1 })
    engine.registerStep('enter', ledger.enter)
    engine.register('plain', 1, async (ctx, name: string) => ctx.step('enter', name))
    const none = await engine.start('plain', 'none')
    await engine.waitForRun(none.runId)
    assert.equal((await engine.getRun(none.runId))?.queue, null, 'no queue unless given')
    const queued = await engine.start('plain', 'queued', { queue: 'solo' })
    await engine.waitForRun(queued.runId)
    assert.equal((await engine.getRun(queued.runId))?.queue, 'solo')
    const refused: Array<[unknown, string]> = [
      ['nowhere', 'E_QUEUE_NOT_REGISTERED'],
      ['', 'E_INVALID_ARGUMENT'],
      ['a\u0000b', 'E_INVALID_ARGUMENT'],
      [5, 'E_INVALID_ARGUMENT'],
      [null, 'E_INVALID_ARGUMENT'],
    ]
    for (const [queue, code] of refused) {
      const runId = `refused-${String(queue).length}-${code}`
      await assert.rejects(
        engine.start('plain', 'x', { runId, queue: queue as string }),
        { code },
        `queue ${JSON.stringify(queue)}`,
      )
      assert.equal(await engine.getRun(runId), null, 'nothing was created')
    }
    assert.throws(() => engine.register('bad', 1, async () => null, { queue: '' }), {
      code: 'E_INVALID_ARGUMENT',
      message: /workflow "bad"/,
    })
    assert.deepEqual(ledger.entered, ['none', 'queued'])
  })

  test('waiters go by run priority, then arrival', async (env) => {
    const ledger = new Ledger()
    const engine = await env.engine({ concurrency: 20 })
    registerImports(engine, ledger, 1)
    const holder = await engine.start('import', 'holder')
    await until(env, () => ledger.entered.length === 1, 'the holder enters')
    const order: Array<[string, number]> = [
      ['first', 0],
      ['low', -5],
      ['vip', 10],
      ['second', 0],
    ]
    const byName = new Map([['holder', holder.runId]])
    for (const [name, priority] of order) {
      byName.set(name, (await engine.start('import', name, { priority })).runId)
      await env.settle()
    }
    for (let i = 0; i < byName.size; i++) {
      await until(env, () => ledger.entered.length > i, `run ${i + 1} enters`)
      const runId = byName.get(ledger.entered[i] as string) as string
      await engine.signal({ runId: runId, name: 'go' }, null)
      await engine.waitForRun(runId, { timeoutMs: 5_000 })
    }
    assert.deepEqual(ledger.entered, ['holder', 'vip', 'first', 'second', 'low'])
  })

  test('a cancelled holder frees its slot; a cancelled waiter leaves the line', async (env) => {
    const ledger = new Ledger()
    const engine = await env.engine({ concurrency: 20 })
    registerImports(engine, ledger, 1)
    const holder = await engine.start('import', 'holder')
    await until(env, () => ledger.entered.length === 1, 'the holder enters')
    const waiter = await engine.start('import', 'waiter')
    const next = await engine.start('import', 'next')
    await env.settle()
    await engine.cancel(waiter.runId, { reason: 'not needed' })
    await engine.cancel(holder.runId, { reason: 'operator' })
    await until(env, () => ledger.entered.length === 2, 'the next run enters')
    assert.deepEqual(ledger.entered, ['holder', 'next'], 'the cancelled waiter never entered')
    await engine.signal({ runId: next.runId, name: 'go' }, null)
    assert.equal((await engine.waitForRun(next.runId, { timeoutMs: 5_000 })).status, 'completed')
  })

  test('a parked run gives its slot up; unparked, it waits in line again', async (env) => {
    const ledger = new Ledger()
    const engine = await env.engine({ concurrency: 20 })
    registerImports(engine, ledger, 1)
    registerCareful(engine)
    const careful = await engine.start('careful', 'careful')
    await until(
      env,
      async () => (await engine.getRun(careful.runId))?.status === 'parked',
      'the run parks',
    )
    const other = await engine.start('import', 'other')
    await until(env, () => ledger.entered.length === 2, 'the other run takes the freed slot')
    const missing: string[] = []
    engine.registerStep('missing', (name: string) => {
      missing.push(`${name} while ${ledger.inside} inside`)
      return name
    })
    await until(
      env,
      async () => (await engine.getRun(careful.runId))?.status !== 'parked',
      'the run is unparked',
    )
    await env.skip(10_000) // past the in-memory hold: it suspends, waiting on the queue
    assert.equal((await engine.getRun(careful.runId))?.status, 'waiting')
    assert.equal((await engine.getRun(careful.runId))?.waitingOn, 'a slot of queue "imports"')
    assert.deepEqual(missing, [], 'nothing of the body ran without the slot')
    await engine.signal({ runId: other.runId, name: 'go' }, null)
    assert.equal((await engine.waitForRun(careful.runId, { timeoutMs: 5_000 })).status, 'completed')
    // "careful" left its first step's count behind when it parked (a step never left): 1 inside.
    assert.deepEqual(missing, ['careful while 1 inside'], 'it ran once the other run had ended')
    assert.deepEqual(ledger.entered, ['careful', 'other'], 'each entered once')
  })

  test('a run granted by message, parked and unparked, is granted by message again', async (env) => {
    const ledger = new Ledger()
    const engine = await env.engine({ concurrency: 20 })
    registerImports(engine, ledger, 1)
    registerCareful(engine)
    const status = async (runId: string) => (await engine.getRun(runId))?.status
    const holder = await engine.start('import', 'holder')
    await until(env, () => ledger.entered.length === 1, 'the holder enters')
    const careful = await engine.start('careful', 'careful')
    await env.skip(10_000) // suspended in line: its grant will come as a message
    await engine.signal({ runId: holder.runId, name: 'go' }, null)
    await until(env, async () => (await status(careful.runId)) === 'parked', 'granted, it parks')
    const other = await engine.start('import', 'other')
    await until(env, () => ledger.entered.length === 3, 'the other run takes the freed slot')
    engine.registerStep('missing', (name: string) => name)
    await until(env, async () => (await status(careful.runId)) !== 'parked', 'unparked')
    await env.skip(10_000) // suspended in line again: the same grant, by message
    await engine.signal({ runId: other.runId, name: 'go' }, null)
    const done = await engine.waitForRun(careful.runId, { timeoutMs: 5_000 })
    assert.equal(done.status, 'completed', 'its second grant reached it')
  })

  test('a holder that parks frees its slot to the next waiter at once', async (env) => {
    const ledger = new Ledger()
    // A sweep two hours away: only the park itself can hand the slot on.
    const engine = await env.engine({ concurrency: 20, parkUnrunnableAfterMs: 7_200_000 })
    registerImports(engine, ledger, 1)
    engine.register(
      'careful',
      1,
      async (ctx) => {
        await ctx.step('enter', 'careful')
        await ctx.waitForSignal('go')
        return ctx.step('missing', null) // not registered: the run parks here, holding the slot
      },
      { queue: 'imports' },
    )
    const careful = await engine.start('careful', null)
    await until(env, () => ledger.entered.length === 1, 'the holder enters')
    const next = await engine.start('import', 'next')
    await env.skip(10_000) // the waiter suspends in line
    await engine.signal({ runId: careful.runId, name: 'go' }, null)
    await until(
      env,
      async () => (await engine.getRun(careful.runId))?.status === 'parked',
      'the holder parks',
    )
    await until(env, () => ledger.entered.length === 2, 'the waiter enters')
    await engine.signal({ runId: next.runId, name: 'go' }, null)
    assert.equal((await engine.waitForRun(next.runId, { timeoutMs: 5_000 })).status, 'completed')
  })

  test('a holder whose execution timeout ends it frees its slot at once', async (env) => {
    const ledger = new Ledger()
    const engine = await env.engine({ concurrency: 20, parkUnrunnableAfterMs: 7_200_000 })
    registerImports(engine, ledger, 1)
    engine.register(
      'slow',
      1,
      async (ctx) => {
        await ctx.step('enter', 'slow')
        return ctx.waitForSignal('never')
      },
      { queue: 'imports', executionTimeoutMs: 60_000 },
    )
    const slow = await engine.start('slow', null)
    await until(env, () => ledger.entered.length === 1, 'the slow run enters')
    const next = await engine.start('import', 'next')
    await env.skip(30_000)
    assert.deepEqual(ledger.entered, ['slow'], 'next waits')
    await env.skip(31_000)
    assert.equal((await engine.waitForRun(slow.runId, { timeoutMs: 5_000 })).status, 'cancelled')
    await until(env, () => ledger.entered.length === 2, 'the waiter enters after the timeout')
    await engine.signal({ runId: next.runId, name: 'go' }, null)
    assert.equal((await engine.waitForRun(next.runId, { timeoutMs: 5_000 })).status, 'completed')
  })

  for (const [where, skip] of [
    ['held in memory', 0],
    ['suspended', 10_000],
  ] as const)
    test(`a compensating cancel of a run waiting for its slot (${where}) runs its compensations`, async (env) => {
      const ledger = new Ledger()
      const undone: string[] = []
      const engine = await env.engine({ concurrency: 20 })
      registerImports(engine, ledger, 1)
      engine.register(
        'reserving',
        1,
        async (ctx) => {
          await ctx.localStep('reserve', () => 'r1', { compensate: () => void undone.push('r1') })
          await ctx.step('missing', null)
          return 'done'
        },
        { queue: 'imports' },
      )
      const run = await engine.start('reserving', null)
      await until(env, async () => (await engine.getRun(run.runId))?.status === 'parked', 'parks')
      const holder = await engine.start('import', 'holder')
      await until(env, () => ledger.entered.length === 1, 'the holder takes the slot')
      engine.registerStep('missing', () => null)
      await until(
        env,
        async () => (await engine.getRun(run.runId))?.status !== 'parked',
        'unparked',
      )
      await env.skip(skip)
      await engine.cancel(run.runId, { compensate: true, reason: 'changed my mind' })
      assert.equal((await engine.waitForRun(run.runId, { timeoutMs: 5_000 })).status, 'cancelled')
      assert.deepEqual(undone, ['r1'], 'its completed step was undone')
      await engine.signal({ runId: holder.runId, name: 'go' }, null)
    })

  test("a queue's fairness added by a later deploy leaves a run under way in its place", async (env) => {
    const first = await env.engine()
    const register = (engine: Engine, fairness: boolean) => {
      engine.registerQueue('imports', {
        concurrency: 1,
        ...(fairness ? { fairness: 'tenant' } : {}),
      })
      engine.registerStep('s', (input: unknown) => input)
      engine.register(
        'import',
        1,
        async (ctx, input: { other: number }) => {
          await ctx.step('s', input)
          await ctx.waitForSignal('go')
          return ctx.step('s', input)
        },
        { queue: 'imports' },
      )
    }
    register(first, false)
    const run = await first.start('import', { other: 1 })
    await env.skip(10_000)
    await first.close()
    const second = await env.engine()
    register(second, true)
    await second.signal({ runId: run.runId, name: 'go' }, null)
    assert.equal((await second.waitForRun(run.runId, { timeoutMs: 5_000 })).status, 'completed')
  })

  test("a step may not wait on its own run's queue; a fork counts only body positions", async (env) => {
    const engine = await env.engine()
    engine.registerQueue('imports', { concurrency: 1 })
    engine.registerStep('s', (n: number) => n)
    engine.register(
      'selfish',
      1,
      async (ctx) => {
        await ctx.step('s', 1)
        try {
          await ctx.step('s', 2, { queue: 'imports' })
          return 'waited'
        } catch (error) {
          return (error as { code?: string }).code
        }
      },
      { queue: 'imports' },
    )
    const run = await engine.start('selfish', null)
    const done = await engine.waitForRun(run.runId, { timeoutMs: 5_000 })
    assert.deepEqual(done.status === 'completed' && done.output, 'E_INVALID_ARGUMENT')
    // The refused call took no position: the body's one position is all a fork may skip.
    await assert.rejects(engine.fork(run.runId, { fromSeq: 2 }), {
      code: 'E_INVALID_ARGUMENT',
      message: /from 0 to 1 /,
    })
    const fork = await engine.fork(run.runId, { fromSeq: 1 })
    assert.equal((await engine.waitForRun(fork.runId, { timeoutMs: 5_000 })).status, 'completed')
  })

  test("a killed holder's slot returns when another engine takes its run over", async (env) => {
    const ledger: string[] = []
    const register = (engine: Engine, frozen: boolean) => {
      engine.registerQueue('imports', { concurrency: 1 })
      engine.registerStep('enter', (name: string) => {
        ledger.push(`${engine.instanceId}:${name}`)
        return frozen ? new Promise<never>(() => {}) : name
      })
      engine.register('import', 1, async (ctx, name: string) => ctx.step('enter', name), {
        queue: 'imports',
      })
    }
    // The first engine's clock never moves: it never renews, as if it died inside the run.
    const first = await env.engine({ leaseMs: 10_000, clock: new FakeClock(env.clock.now()) })
    register(first, true)
    const a = await first.start('import', 'a')
    await env.settle()
    const second = await env.engine({ leaseMs: 10_000 })
    register(second, false)
    const b = await second.start('import', 'b')
    await env.settle()
    assert.deepEqual(ledger, ['engine-1:a'], 'b waits: the frozen holder keeps the slot')
    await env.skip(20_000)
    assert.equal((await second.waitForRun(a.runId, { timeoutMs: 5_000 })).status, 'completed')
    assert.equal((await second.waitForRun(b.runId, { timeoutMs: 5_000 })).status, 'completed')
    // The takeover asked for a's slot again and was told it holds it: a ran again, then b.
    assert.deepEqual(ledger, ['engine-1:a', 'engine-2:a', 'engine-2:b'])
  })

  test("a successor keeps its run's queue; a fairness that cannot place the run fails it", async (env) => {
    const engine = await env.engine()
    engine.registerQueue('imports', { concurrency: 1 })
    engine.registerQueue('tenants', { concurrency: 1, fairness: 'tenant' })
    engine.register(
      'loop',
      1,
      async (ctx, left: number) => (left === 0 ? 'done' : ctx.continueAsNew(left - 1)),
      { queue: 'imports' },
    )
    const loop = await engine.start('loop', 2)
    // waitForRun follows the successors to the last one.
    assert.equal((await engine.waitForRun(loop.runId, { timeoutMs: 5_000 })).status, 'completed')
    const chain: Array<string | null> = []
    for (let runId: string | null = loop.runId; runId !== null;) {
      const run: RunInfo | null = await engine.getRun(runId)
      chain.push(run?.queue ?? null)
      runId = run?.continuedTo ?? null
    }
    assert.deepEqual(chain, ['imports', 'imports', 'imports'], 'successors run in the same queue')
    engine.register('tenanted', 1, async () => 'ran', { queue: 'tenants' })
    const bad = await engine.start('tenanted', { other: 1 })
    const failed = await engine.waitForRun(bad.runId, { timeoutMs: 5_000 })
    assert.equal(failed.status, 'failed')
    assert.equal(failed.status === 'failed' && failed.error.code, 'E_INVALID_ARGUMENT')
    const good = await engine.start('tenanted', { tenant: 't1' })
    assert.equal((await engine.waitForRun(good.runId, { timeoutMs: 5_000 })).status, 'completed')
  })
})
