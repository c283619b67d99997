/**
 * A paused holder never starts user code after its lease lapsed. Engine A is "SIGSTOPped" at
 * the worst moment — its checkpoint of step `one` committed, the store's answer not yet read —
 * while engine B takes the run over after lease expiry and finishes it. Then A "continues":
 * its monotonic clock jumped by the pause, and it reads the answer. Without the lease check it
 * would deliver `one` and start the next piece of user code; with it, it confirms the lease
 * with the store first, learns it is lost, and starts nothing.
 */
import assert from 'node:assert/strict'
import { Engine, FatalError, silentLogger, type Clock, type WorkflowContext } from '@cairn/core'
import { FakeClock, settle } from '@cairn/core/testing'
import type { StoreOp } from '@cairn/core/contracts'
import type { Knex } from 'knex'
import { eachStore, type Env } from '../helpers/harness.ts'
import { HeldStore } from '../helpers/held_store.ts'

const LEASE_MS = 3_000
const PAUSE_MS = 6_000

/** What runs after step `one`: each kind of user code the engine starts for a workflow. */
type Next = 'local' | 'registered' | 'sideEffect' | 'compensation' | 'transaction'

/** A fake clock whose monotonic time the test moves alone: a pause, without firing timers. */
function pausableClock(start: number): Clock & { pause(ms: number): void } {
  const clock = new FakeClock(start)
  let paused = 0
  return {
    now: () => clock.now(),
    setTimer: (delayMs, fn) => clock.setTimer(delayMs, fn),
    monotonic: () => clock.now() + paused,
    pause: (ms) => void (paused += ms),
  }
}

function register(engine: Engine, who: string, next: Next, ledger: string[]): void {
  const effect = (what: string) => () => (ledger.push(`${who}:${what}`), what)
  engine.registerStep('two', effect('two'))
  engine.register('w', 1, async (ctx: WorkflowContext) => {
    const one = await ctx.localStep('one', effect('one'), { compensate: effect('undo-one') })
    if (next === 'local') return [one, await ctx.localStep('two', effect('two'))]
    if (next === 'registered') return [one, await ctx.step('two', null)]
    if (next === 'sideEffect') return [one, await ctx.sideEffect(effect('two'), 'two')]
    if (next === 'transaction')
      return [one, await ctx.transaction('two', (_trx: Knex.Transaction) => effect('two')())]
    throw new FatalError('fails after one: its compensation runs')
  })
}

function checkpointOf(name: string) {
  return (ops: readonly StoreOp[]) =>
    ops.some((op) => op.type === 'saveCheckpoint' && op.checkpoint.name === name)
}

/**
 * A, paused with `one` committed and unread; its clock, and the run's id. Made outside the
 * harness, whose skips wait for every engine it made to be quiet (a paused one never is):
 * the test closes it.
 */
async function pausedAfterOne(env: Env, next: Next, ledger: string[]) {
  const store = new HeldStore(env.handle.reopen())
  const clock = pausableClock(env.clock.now())
  const a = new Engine({ store, clock, logger: silentLogger, instanceId: 'a', leaseMs: LEASE_MS })
  await a.startDriving()
  register(a, 'a', next, ledger)
  const answer = store.holdNextAnswer(checkpointOf('one'))
  const { runId } = await a.start('w', null)
  await answer.reached
  return { a, runId, clock, answer }
}

/** B takes the run over while A is paused; then A continues and must start nothing. */
async function takenOverWhilePaused(
  env: Env,
  next: Next,
  ledger: string[],
  { a, runId, clock, answer }: Awaited<ReturnType<typeof pausedAfterOne>>,
): Promise<void> {
  // B takes the run over once A's lease expired (A, paused, renewed nothing) and ends it.
  const b = await env.engine({ instanceId: 'b', leaseMs: LEASE_MS })
  register(b, 'b', next, ledger)
  await env.skip(LEASE_MS + 1_000)
  const outcome = await b.waitForRun(runId, { timeoutMs: 5_000 })
  assert.equal(outcome.status, next === 'compensation' ? 'failed' : 'completed')
  const byB = next === 'compensation' ? ['b:undo-one'] : ['b:two']
  assert.deepEqual(ledger, ['a:one', ...byB])

  // A continues: the pause shows on its monotonic clock, and it reads `one`'s answer.
  clock.pause(PAUSE_MS)
  answer.release()
  const deadline = Date.now() + 5_000
  while (a.activeRuns > 0 && Date.now() < deadline) await settle()
  assert.equal(a.activeRuns, 0, 'A let the run go')
  assert.deepEqual(ledger, ['a:one', ...byB], 'A started nothing after it continued')
  assert.equal((await b.getRun(runId))?.status, outcome.status, 'the outcome stands')
}

const hasTransactions = (storeName: string) => storeName.startsWith('knex-')

eachStore('lease validity', (test) => {
  for (const next of [
    'local',
    'registered',
    'sideEffect',
    'compensation',
    'transaction',
  ] as const) {
    test(
      `a holder paused past its lease starts no ${next} after it continues`,
      async (env) => {
        const ledger: string[] = []
        const { a, runId, clock, answer } = await pausedAfterOne(env, next, ledger)
        try {
          await takenOverWhilePaused(env, next, ledger, { a, runId, clock, answer })
        } finally {
          await a.close(0)
        }
      },
      next === 'transaction' ? hasTransactions : undefined,
    )
  }

  test('a holder paused past its lease that nobody took over confirms it and goes on', async (env) => {
    const ledger: string[] = []
    const { a, runId, clock, answer } = await pausedAfterOne(env, 'local', ledger)
    try {
      clock.pause(PAUSE_MS)
      answer.release()
      assert.deepEqual(await a.waitForRun(runId, { timeoutMs: 5_000 }), {
        runId,
        status: 'completed',
        output: ['one', 'two'],
      })
      assert.deepEqual(ledger, ['a:one', 'a:two'])
      const run = await a.store.getRun(runId)
      assert.equal(run?.turns, 1, 'the same lease, confirmed: no second claim')
    } finally {
      await a.close(0)
    }
  })
})
