/**
 * Nothing a workflow body, a step or their payloads do may crash or wedge the engine process.
 * Durations and deadlines past the Date range are refused at the call (the run fails with
 * E_INVALID_ARGUMENT); an error too large to record is cut to fit; a history recorded with a due
 * time no Date can hold (by an older version) still replays. After each, the same engine runs
 * the next workflow, and an engine restarted on the store does too. (An unhandled rejection
 * fails the test: node:test reports it against the running test.)
 */
import assert from 'node:assert/strict'
import type { Engine, WorkflowContext } from '@cairn/core'
import { eachStore, type Env } from '../helpers/harness.ts'

const MIB = 1024 * 1024

/** The engine still executes work: a fresh run of a one-step workflow completes. */
async function stillServes(engine: Engine): Promise<void> {
  const { runId } = await engine.start('healthy', null)
  assert.deepEqual(await engine.waitForRun(runId, { timeoutMs: 10_000 }), {
    runId,
    status: 'completed',
    output: 'fine',
  })
}

async function engineWith(
  env: Env,
  name: string,
  body: (ctx: WorkflowContext) => Promise<unknown>,
) {
  const engine = await env.engine()
  engine.register('healthy', 1, async (ctx) => ctx.localStep('ok', () => 'fine'))
  engine.register(name, 1, body)
  return engine
}

const POISON: Array<[string, (ctx: WorkflowContext) => Promise<unknown>]> = [
  ['sleep(Number.MAX_SAFE_INTEGER)', (ctx) => ctx.sleep(Number.MAX_SAFE_INTEGER)],
  ["sleep('99999999999d')", (ctx) => ctx.sleep('99999999999d')],
  [
    'waitForSignal timeout MAX_SAFE_INTEGER',
    (ctx) => ctx.waitForSignal('go', { timeoutMs: Number.MAX_SAFE_INTEGER }),
  ],
  [
    'waitForEvent timeout MAX_SAFE_INTEGER',
    (ctx) => ctx.waitForEvent('go', { timeoutMs: Number.MAX_SAFE_INTEGER }),
  ],
  ['sleepUntil(a time past the Date range)', (ctx) => ctx.sleepUntil(9e15)],
  [
    'localStep timeout Infinity',
    (ctx) => ctx.localStep('s', () => 1, { timeoutMs: Number.POSITIVE_INFINITY }),
  ],
]

eachStore('poison runs', (test) => {
  for (const [what, body] of POISON) {
    test(`${what}: the run fails with E_INVALID_ARGUMENT, the engine goes on`, async (env) => {
      const engine = await engineWith(env, 'poison', body)
      const { runId } = await engine.start('poison', null)
      const outcome = await engine.waitForRun(runId, { timeoutMs: 10_000 })
      assert.equal(outcome.status, 'failed')
      assert.equal(outcome.status === 'failed' && outcome.error.code, 'E_INVALID_ARGUMENT')
      await stillServes(engine)
      await stillServes(await engineWith(env, 'poison', body)) // a restart is no different
    })
  }

  test('a workflow that throws a 5 MiB error message fails with it cut to fit', async (env) => {
    const engine = await engineWith(env, 'loud', async () => {
      throw new Error('x'.repeat(5 * MIB))
    })
    const { runId } = await engine.start('loud', null)
    const outcome = await engine.waitForRun(runId, { timeoutMs: 10_000 })
    assert.equal(outcome.status, 'failed')
    if (outcome.status !== 'failed') return
    assert.ok(outcome.error.message.length < 20_000, 'cut to a diagnostic length')
    assert.match(outcome.error.message, /truncated: 5242880 characters in all\)$/)
    await stillServes(engine)
  })

  test('a step failing with a 5 MiB message, stack and cause is recorded cut, and fails the run', async (env) => {
    const engine = await engineWith(env, 'noisy-step', async (ctx) =>
      ctx.localStep(
        'loud',
        () => {
          const error = new Error('m'.repeat(5 * MIB), { cause: new Error('c'.repeat(5 * MIB)) })
          error.stack = `Error\n${'    at somewhere\n'.repeat(400_000)}`
          throw error
        },
        { retries: 0 },
      ),
    )
    const { runId } = await engine.start('noisy-step', null)
    const outcome = await engine.waitForRun(runId, { timeoutMs: 10_000 })
    assert.equal(outcome.status, 'failed')
    const [step] = await engine.getSteps(runId)
    assert.equal(step?.status, 'failed')
    assert.match(step?.error?.message ?? '', /truncated/)
    await stillServes(engine)
  })

  test('a history with a due time no Date can hold (written by an older version) replays without a crash', async (env) => {
    const farAway = 9e15 // a safe integer, past the last instant a Date holds (8.64e15)
    const store = env.handle.store
    await store.open()
    const now = env.clock.now()
    const run = { id: 'old-1', workflow: 'sleeper', version: '1', input: 'null', createdAt: now }
    await store.applyBatch(
      [{ type: 'createRun', run, claim: { owner: 'old-engine', leaseMs: 1 } }],
      now,
    )
    const waiting = {
      runId: 'old-1',
      seq: 0,
      name: 'sleep',
      kind: 'sleep' as const,
      status: 'waiting' as const,
      attempts: 1,
      order: null,
      input: null,
      output: null,
      error: null,
      wakeAt: farAway,
      startedAt: now,
      updatedAt: now,
      worker: null,
    }
    const fence = { runId: 'old-1', epoch: 1 }
    await store.applyBatch(
      [
        { type: 'saveCheckpoint', fence, checkpoint: waiting },
        { type: 'releaseRun', fence, availableAt: now },
      ],
      now,
    )
    const engine = await engineWith(env, 'sleeper', async (ctx) => ctx.sleep('1h'))
    await env.settle()
    await env.skip(1)
    const info = await engine.getRun('old-1')
    assert.equal(info?.status, 'waiting', 'claimed, replayed, suspended on its recorded time')
    assert.ok(info?.waitingOn?.endsWith(`until ${farAway} ms`), info?.waitingOn ?? 'no waitingOn')
    await stillServes(engine)
    await engine.cancel('old-1')
    assert.equal((await engine.getRun('old-1'))?.status, 'cancelled')
  })
})
