/**
 * The bound on poison runs and dead letters (issue 16): a run whose turns keep dying — here, an
 * engine that stops inside a step and never renews its lease, as a killed process would — is
 * taken over at most `maxRecoveryAttempts` times, then ends `dead` without running again; its
 * completed steps never re-run; its dead letter runs once; a requeue brings it back with its
 * count at 0. A run that moves on between takeovers (a suspend) starts counting again. A failed
 * run gets a dead letter too, and a dead letter's own failure gets none. Counts come from a
 * ledger of what each engine's handlers did, and states from the store.
 */
import assert from 'node:assert/strict'
import { FakeClock } from '@cairn/core/testing'
import type { DeadLetter, Engine, EngineOptions } from '@cairn/core'
import { eachStore, type Env } from '../helpers/harness.ts'

const LEASE = 10_000

interface Setup {
  ledger: string[]
  letters: DeadLetter[]
  deaths: string[]
}

/**
 * An engine whose `poison` step never returns when `dying` (it stops there, as a killed process
 * would: its own clock never moves, so it never renews), and returns at once otherwise.
 */
async function engineFor(
  env: Env,
  setup: Setup,
  dying: boolean,
  options: Partial<EngineOptions> = {},
): Promise<Engine> {
  const clock = dying ? { clock: new FakeClock(env.clock.now()) } : {}
  const engine = await env.engine({
    leaseMs: LEASE,
    maxRecoveryAttempts: 2,
    deadLetterWorkflow: 'bury',
    ...clock,
    ...options,
  })
  const me = engine.instanceId
  engine.register('order', 1, async (ctx, sku: string) => {
    await ctx.localStep('reserve', () => void setup.ledger.push(`${me}:reserve:${sku}`))
    await ctx.localStep('poison', () => {
      setup.ledger.push(`${me}:poison`)
      return dying ? new Promise<never>(() => {}) : 'ok'
    })
    await ctx.sleep(60_000)
    await ctx.localStep('ship', () => {
      setup.ledger.push(`${me}:ship`)
      return dying ? new Promise<never>(() => {}) : 'shipped'
    })
    return sku
  })
  engine.register('bury', 1, async (ctx, letter: DeadLetter) => {
    await ctx.localStep('record', () => void setup.letters.push(letter))
    return letter.deadRunId
  })
  engine.onDead((dead) => setup.deaths.push(`${me}:${dead.runId}`))
  return engine
}

function fresh(): Setup {
  return { ledger: [], letters: [], deaths: [] }
}

eachStore('poison runs and dead letters', (test) => {
  test('a run whose turns keep dying ends dead after maxRecoveryAttempts takeovers', async (env) => {
    const setup = fresh()
    const first = await engineFor(env, setup, true)
    const { runId } = await first.start('order', 'sku-1')
    await env.settle()
    for (let takeover = 1; takeover <= 3; takeover++) {
      await env.skip(LEASE + 1)
      await engineFor(env, setup, true)
      await env.settle()
    }
    assert.deepEqual(
      setup.ledger,
      [
        'engine-1:reserve:sku-1',
        'engine-1:poison',
        'engine-2:poison',
        'engine-3:poison',
        // engine-4 took it over a third time (above 2): it ended it, running nothing.
      ],
      'reserve ran once; poison ran on the first holder and on 2 recoveries',
    )
    const run = await first.getRun(runId)
    assert.equal(run?.status, 'dead')
    assert.equal(run?.recoveries, 3)
    assert.equal(run?.error?.code, 'E_RUN_DEAD')
    assert.deepEqual(setup.deaths, [`engine-4:${runId}`], 'onDead, on the engine that ended it')
    const healthy = await engineFor(env, setup, false)
    const outcome = await healthy.waitForRun(runId, { timeoutMs: 5_000 })
    assert.equal(outcome.status, 'dead')
    const letter = await healthy.waitForRun(`dlq:${runId}`, { timeoutMs: 5_000 })
    assert.deepEqual(letter, { runId: `dlq:${runId}`, status: 'completed', output: runId })
    assert.equal(setup.letters.length, 1, 'the dead letter ran once')
    const [received] = setup.letters
    assert.deepEqual(
      { ...received, error: received?.error.code },
      {
        deadRunId: runId,
        workflow: 'order',
        version: '1',
        status: 'dead',
        input: 'sku-1',
        error: 'E_RUN_DEAD',
        recoveries: 3,
      },
    )
    await env.skip(5 * LEASE)
    assert.equal((await healthy.getRun(runId))?.status, 'dead', 'never claimed again')
    assert.equal(setup.ledger.length, 4, 'nothing ran since')
  })

  test('a requeued dead run runs on from its checkpoints, its count back at 0', async (env) => {
    const setup = fresh()
    const first = await engineFor(env, setup, true, { maxRecoveryAttempts: 0 })
    const { runId } = await first.start('order', 'sku-2')
    await env.settle()
    await env.skip(LEASE + 1)
    const second = await engineFor(env, setup, true, { maxRecoveryAttempts: 0 })
    await env.settle()
    assert.equal((await first.getRun(runId))?.status, 'dead', 'no recovery allowed: dead at once')
    // Gone for good (a store's push wake-up would let a frozen engine take the requeued run).
    await first.close(0)
    await second.close(0)
    const healthy = await engineFor(env, setup, false, { maxRecoveryAttempts: 0 })
    await healthy.requeue(runId)
    const requeued = await healthy.getRun(runId)
    assert.equal(requeued?.recoveries, 0)
    await env.skip(60_000)
    const outcome = await healthy.waitForRun(runId, { timeoutMs: 5_000 })
    assert.deepEqual(outcome, { runId, status: 'completed', output: 'sku-2' })
    assert.deepEqual(setup.ledger, [
      'engine-1:reserve:sku-2',
      'engine-1:poison',
      'engine-3:poison',
      'engine-3:ship',
    ])
  })

  test('a run that moves on (a suspend) between takeovers starts counting again', async (env) => {
    const setup = fresh()
    const first = await engineFor(env, setup, true, { maxRecoveryAttempts: 1 })
    const { runId } = await first.start('order', 'sku-3')
    await env.settle()
    await env.skip(LEASE + 1)
    // One takeover (recoveries 1): a healthy engine gets past poison and suspends in the sleep.
    const healthy = await engineFor(env, setup, false, { maxRecoveryAttempts: 1 })
    await env.settle()
    await healthy.close()
    assert.equal((await first.getRun(runId))?.recoveries, 0, 'the suspend set it back to 0')
    await env.skip(60_000)
    await engineFor(env, setup, true, { maxRecoveryAttempts: 1 }) // wakes it: no takeover
    await env.settle()
    await env.skip(LEASE + 1)
    await engineFor(env, setup, true, { maxRecoveryAttempts: 1 }) // takeover 1: allowed
    await env.settle()
    assert.equal((await first.getRun(runId))?.status, 'running')
    await env.skip(LEASE + 1)
    await engineFor(env, setup, true, { maxRecoveryAttempts: 1 }) // takeover 2: dead
    await env.settle()
    assert.equal((await first.getRun(runId))?.status, 'dead')
    assert.deepEqual(setup.ledger, [
      'engine-1:reserve:sku-3',
      'engine-1:poison',
      'engine-2:poison',
      'engine-3:ship',
      'engine-4:ship',
    ])
  })

  test("a failed run gets a dead letter; a dead letter's own failure gets none", async (env) => {
    const engine = await env.engine({ deadLetterWorkflow: 'bury' })
    const letters: DeadLetter[] = []
    engine.register('charge', 1, async (ctx, amount: number) => {
      await ctx.localStep(
        'charge',
        () => {
          throw new Error(`card declined for ${amount}`)
        },
        { retries: 0 },
      )
    })
    engine.register(
      'quiet',
      1,
      async () => {
        throw new Error('no letter for me')
      },
      { deadLetterWorkflow: null },
    )
    engine.register('bury', 1, async (ctx, letter: DeadLetter) => {
      await ctx.localStep('record', () => void letters.push(letter))
      if (letter.workflow === 'charge') throw new Error('the handler fails too')
    })
    const charge = await engine.start('charge', 42)
    const quiet = await engine.start('quiet', null)
    assert.equal((await engine.waitForRun(charge.runId, { timeoutMs: 5_000 })).status, 'failed')
    assert.equal((await engine.waitForRun(quiet.runId, { timeoutMs: 5_000 })).status, 'failed')
    const letter = await engine.waitForRun(`dlq:${charge.runId}`, { timeoutMs: 5_000 })
    assert.equal(letter.status, 'failed', 'the handler failed')
    await env.settle()
    assert.deepEqual(
      letters.map((l) => [l.deadRunId, l.status, l.input, l.error.message]),
      [[charge.runId, 'failed', 42, 'card declined for 42']],
    )
    const { runs } = await engine.listRuns({ limit: 100 })
    assert.deepEqual(
      runs.map((r) => r.id).sort(),
      [charge.runId, `dlq:${charge.runId}`, quiet.runId].sort(),
      'no dead letter for quiet (null), none for the failed dead letter',
    )
  })

  test('bad dead-letter options are refused by name', async (env) => {
    const bad: Array<[string, Partial<EngineOptions>]> = [
      ['maxRecoveryAttempts -1', { maxRecoveryAttempts: -1 }],
      ['maxRecoveryAttempts NaN', { maxRecoveryAttempts: NaN }],
      ['maxRecoveryAttempts 1.5', { maxRecoveryAttempts: 1.5 }],
      ['maxRecoveryAttempts 1001', { maxRecoveryAttempts: 1001 }],
      ['deadLetterWorkflow empty', { deadLetterWorkflow: '' }],
      ['deadLetterWorkflow number', { deadLetterWorkflow: 7 as never }],
    ]
    for (const [what, options] of bad)
      await assert.rejects(
        env.engine({ ...options, drive: false }),
        { code: 'E_INVALID_ARGUMENT' },
        what,
      )
    const engine = await env.engine({ maxRecoveryAttempts: Infinity, drive: false })
    assert.throws(() => engine.register('w', 1, async () => null, { deadLetterWorkflow: '' }), {
      code: 'E_INVALID_ARGUMENT',
    })
  })
})
