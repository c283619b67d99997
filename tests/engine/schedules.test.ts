/**
 * Schedules (issue 16): runs started on a clock by whichever driving engine fires them, exactly
 * once per window — with several engines racing, after a firing whose advance was lost, after a
 * downtime (backfill) — through each overlap policy; paused, resumed, triggered, declared in
 * code. Runs are read from the store, and counted from a ledger of what the bodies did.
 */
import assert from 'node:assert/strict'
import type { Engine, EngineOptions, RunInfo, StateStore } from '@cairn/core'
import { eachStore, type Env } from '../helpers/harness.ts'

const MINUTE = 60_000

async function runsOf(engine: Engine, workflow: string): Promise<RunInfo[]> {
  const { runs } = await engine.listRuns({ workflow, limit: 1000 })
  return runs.sort((a, b) => (a.id < b.id ? -1 : 1))
}

/** A driving engine with `report` (records its input, ends at once) and `hold` (waits for `go`). */
async function engineWith(env: Env, ledger: string[], options: Partial<EngineOptions> = {}) {
  const engine = await env.engine(options)
  engine.register('report', 1, async (ctx, input: unknown) => {
    await ctx.localStep('note', () => void ledger.push(`${ctx.runId} ${JSON.stringify(input)}`))
    return input
  })
  engine.register('hold', 1, async (ctx) => {
    await ctx.localStep('note', () => void ledger.push(ctx.runId))
    await ctx.waitForSignal('go')
  })
  return engine
}

const windowId = (id: string, ms: number) => `sch:${id}:${new Date(ms).toISOString()}`

eachStore('schedules', (test) => {
  test('every window starts one run, whichever of three engines fires it', async (env) => {
    const ledger: string[] = []
    const engines = [
      await engineWith(env, ledger),
      await engineWith(env, ledger),
      await engineWith(env, ledger),
    ]
    const t0 = env.clock.now()
    const info = await engines[0]?.schedule('minutely', {
      workflow: 'report',
      everyMs: MINUTE,
      input: { kind: 'tick' },
    })
    assert.equal(info?.nextAt?.getTime(), t0 + MINUTE)
    for (let i = 0; i < 10; i++) await env.skip(MINUTE)
    const runs = await runsOf(engines[0] as Engine, 'report')
    assert.deepEqual(
      runs.map((run) => run.id),
      Array.from({ length: 10 }, (_, k) => windowId('minutely', t0 + (k + 1) * MINUTE)),
    )
    assert.equal(ledger.length, 10, 'each window ran once')
    assert.ok(ledger.every((line) => line.endsWith('{"kind":"tick"}')))
    const after = await engines[1]?.getSchedule('minutely')
    assert.equal(after?.fired, 10)
    assert.equal(after?.lastRunId, windowId('minutely', t0 + 10 * MINUTE))
  })

  test('a firing whose advance was lost is repeated by the next claimer without a second run', async (env) => {
    const ledger: string[] = []
    let lose = true
    const first = await engineWith(env, ledger, {
      leaseMs: 10_000,
      store: failingAdvance(env.handle.reopen(), () => lose),
    })
    const t0 = env.clock.now()
    await first.schedule('s', { workflow: 'report', everyMs: MINUTE })
    await env.skip(MINUTE)
    assert.equal(ledger.length, 1, 'the window ran; its advance failed')
    assert.equal((await first.getSchedule('s'))?.fired, 0)
    lose = false
    await env.skip(10_000) // the lease lapses: claimed again, the start finds its run
    const schedule = await first.getSchedule('s')
    assert.equal(schedule?.fired, 1)
    assert.equal(schedule?.lastWindowAt?.getTime(), t0 + MINUTE)
    assert.deepEqual(
      (await runsOf(first, 'report')).map((run) => run.id),
      [windowId('s', t0 + MINUTE)],
    )
    assert.equal(ledger.length, 1, 'no second run')
  })

  test('overlap skip passes windows over while the previous run is open', async (env) => {
    const ledger: string[] = []
    const engine = await engineWith(env, ledger)
    const t0 = env.clock.now()
    await engine.schedule('s', { workflow: 'hold', everyMs: MINUTE })
    await env.skip(3 * MINUTE)
    assert.deepEqual(ledger, [windowId('s', t0 + MINUTE)])
    await engine.signal({ runId: windowId('s', t0 + MINUTE), name: 'go' }, null)
    await env.skip(MINUTE)
    assert.deepEqual(ledger, [windowId('s', t0 + MINUTE), windowId('s', t0 + 4 * MINUTE)])
    const info = await engine.getSchedule('s')
    assert.deepEqual([info?.fired, info?.skipped], [2, 2])
  })

  test('overlap bufferOne holds one window and starts it once the previous run ends', async (env) => {
    const ledger: string[] = []
    const engine = await engineWith(env, ledger)
    const t0 = env.clock.now()
    await engine.schedule('s', { workflow: 'hold', everyMs: MINUTE, overlap: 'bufferOne' })
    await env.skip(3 * MINUTE)
    assert.deepEqual(ledger, [windowId('s', t0 + MINUTE)])
    assert.equal((await engine.getSchedule('s'))?.bufferedWindowAt?.getTime(), t0 + 2 * MINUTE)
    await engine.signal({ runId: windowId('s', t0 + MINUTE), name: 'go' }, null)
    await env.skip(2_000)
    assert.deepEqual(ledger, [windowId('s', t0 + MINUTE), windowId('s', t0 + 2 * MINUTE)])
    const info = await engine.getSchedule('s')
    assert.deepEqual([info?.fired, info?.skipped, info?.bufferedWindowAt], [2, 1, null])
  })

  test('overlap cancelPrevious cancels the open run; allow runs them side by side', async (env) => {
    const ledger: string[] = []
    const engine = await engineWith(env, ledger)
    const t0 = env.clock.now()
    await engine.schedule('c', { workflow: 'hold', everyMs: MINUTE, overlap: 'cancelPrevious' })
    await engine.schedule('a', { workflow: 'hold', everyMs: MINUTE, overlap: 'allow' })
    await env.skip(2 * MINUTE)
    const status = async (id: string) => (await engine.getRun(id))?.status
    assert.equal(await status(windowId('c', t0 + MINUTE)), 'cancelled')
    assert.equal(await status(windowId('c', t0 + 2 * MINUTE)), 'waiting')
    assert.equal(await status(windowId('a', t0 + MINUTE)), 'waiting')
    assert.equal(await status(windowId('a', t0 + 2 * MINUTE)), 'waiting')
  })

  test('after a downtime the newest 1 + maxCatchup windows run, the rest are counted skipped', async (env) => {
    const ledger: string[] = []
    const writer = await env.engine({ drive: false })
    const t0 = env.clock.now()
    // `allow`: the catch-up windows' runs may overlap (with `skip` the first would hold them off).
    await writer.schedule('s', {
      workflow: 'report',
      everyMs: MINUTE,
      backfill: { maxCatchup: 2 },
      overlap: 'allow',
    })
    await env.skip(10 * MINUTE + 1) // nobody drives
    assert.deepEqual(ledger, [])
    const engine = await engineWith(env, ledger)
    await env.settle()
    assert.deepEqual(
      (await runsOf(engine, 'report')).map((run) => run.id),
      [8, 9, 10].map((k) => windowId('s', t0 + k * MINUTE)),
    )
    const info = await engine.getSchedule('s')
    assert.deepEqual([info?.fired, info?.skipped], [3, 7])
  })

  test('paused fires nothing; resumed counts from then; a trigger runs now', async (env) => {
    const ledger: string[] = []
    const engine = await engineWith(env, ledger)
    await engine.schedule('s', { workflow: 'report', everyMs: MINUTE, input: 1 })
    const paused = await engine.pauseSchedule('s')
    assert.deepEqual([paused.paused, paused.nextAt, paused.upcoming], [true, null, []])
    await env.skip(5 * MINUTE)
    assert.deepEqual(ledger, [])
    const resumedAt = env.clock.now()
    await engine.resumeSchedule('s')
    await env.skip(MINUTE)
    assert.deepEqual(
      (await runsOf(engine, 'report')).map((run) => run.id),
      [windowId('s', resumedAt + MINUTE)],
      'no window missed while paused',
    )
    const { runId } = await engine.triggerSchedule('s')
    assert.match(runId, /^sch:s:manual:/)
    assert.equal((await engine.waitForRun(runId, { timeoutMs: 5_000 })).status, 'completed')
    await assert.rejects(engine.triggerSchedule('nope'), { code: 'E_SCHEDULE_NOT_FOUND' })
    assert.equal(await engine.deleteSchedule('s'), true)
    await env.skip(3 * MINUTE)
    assert.equal(ledger.length, 2, 'nothing after the delete')
  })

  test('declared schedules are put at start; a redeploy with the same spec keeps their state', async (env) => {
    const ledger: string[] = []
    const inputs: string[] = []
    const options = (every: number): Partial<EngineOptions> => ({
      schedules: [
        {
          id: 'declared',
          workflow: 'report',
          everyMs: every,
          input: ({ scheduledAt }: { scheduledAt: Date }) => {
            inputs.push(scheduledAt.toISOString())
            return scheduledAt.toISOString()
          },
        },
      ],
    })
    const first = await engineWith(env, ledger, options(MINUTE))
    const t0 = env.clock.now()
    await env.skip(2 * MINUTE)
    await first.pauseSchedule('declared')
    await first.close()
    const again = await engineWith(env, ledger, options(MINUTE))
    const kept = await again.getSchedule('declared')
    assert.deepEqual(
      [kept?.paused, kept?.fired, kept?.revision],
      [true, 2, 2],
      "the operator's pause and the firing state survive the redeploy",
    )
    assert.deepEqual(
      inputs,
      [t0 + MINUTE, t0 + 2 * MINUTE].map((ms) => new Date(ms).toISOString()),
    )
    await again.close()
    const changed = await engineWith(env, ledger, options(2 * MINUTE))
    assert.equal((await changed.getSchedule('declared'))?.everyMs, 2 * MINUTE)
  })

  test('a workflow may declare its own schedule; bad specs and ids are refused', async (env) => {
    const ledger: string[] = []
    const engine = await engineWith(env, ledger)
    const t0 = env.clock.now()
    engine.register('nightly', 1, async () => ledger.push('nightly'), {
      schedule: { everyMs: MINUTE },
    })
    await env.settle()
    assert.equal((await engine.getSchedule('nightly'))?.workflow, 'nightly')
    await env.skip(MINUTE)
    assert.equal((await engine.getRun(windowId('nightly', t0 + MINUTE)))?.status, 'completed')
    await assert.rejects(engine.schedule('x', { workflow: 'report' } as never), {
      code: 'E_INVALID_ARGUMENT',
    })
    await assert.rejects(
      engine.schedule('x'.repeat(201), { workflow: 'report', everyMs: MINUTE }),
      {
        code: 'E_INVALID_ARGUMENT',
      },
    )
    assert.throws(
      () => engine.register('bad', 1, async () => null, { schedule: { cron: 'nope' } }),
      { code: 'E_INVALID_ARGUMENT' },
    )
    assert.equal(await engine.getSchedule('x'), null)
    assert.deepEqual(
      (await engine.listSchedules()).map((s) => s.id),
      ['nightly'],
      'nothing written for refused specs',
    )
  })
})

/** The real store, whose advanceSchedule fails while `lose()`: a firer that died before it. */
function failingAdvance(store: StateStore, lose: () => boolean): StateStore {
  return new Proxy(store, {
    get(target, key, receiver) {
      if (key === 'advanceSchedule')
        return (...args: Parameters<StateStore['advanceSchedule']>) =>
          lose()
            ? Promise.reject(new Error('the firing engine died before its advance'))
            : target.advanceSchedule(...args)
      const value = Reflect.get(target, key, receiver) as unknown
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
}
