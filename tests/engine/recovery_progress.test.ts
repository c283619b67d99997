/**
 * A run that moves on between takeovers starts counting again (docs/dead-letters.md): a
 * taken-over run's first recorded step outcome — a local step's, or a transactional step's
 * (which commits through store.runTransactionalStep, not the group committer) — is said at
 * once by a lease renewal, which sets its `recoveries` back to 0. Each engine has its own FakeClock (env.settle would wait for the
 * open transaction forever), so the test waits in real time.
 */
import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { FakeClock } from '@cairn/core/testing'
import type { Engine } from '@cairn/core'
import { eachStore, type Env } from '../helpers/harness.ts'

const LEASE = 9_000
const T0 = Date.UTC(2030, 0, 1)
/** Reads `read` until it returns `wanted` (then returns it), or returns its last value after 20 s. */
async function until<T>(read: () => Promise<T>, wanted: T): Promise<T> {
  const giveUpAt = Date.now() + 20_000
  for (;;) {
    const value = await read()
    if (value === wanted || Date.now() >= giveUpAt) return value
    await sleep(25)
  }
}

/** Stores with transactional steps (knex-sqlite too, but an open transaction blocks its only writer). */
const TRANSACTIONAL = new Set(['knex-postgres', 'knex-mysql'])

for (const kind of ['local', 'transaction'] as const) {
  eachStore(`moving on through a ${kind} step`, (test) => {
    test(
      `a renewal after a committed ${kind} step sets recoveries to 0`,
      async (env) => {
        const gates: Array<() => void> & { done?: boolean } = []
        try {
          await body(env, gates)
        } finally {
          gates.done = true
          for (const open of gates) open()
          await sleep(200)
        }
      },
      (store) => kind === 'local' || TRANSACTIONAL.has(store),
    )
    const body = async (env: Env, gates: Array<() => void> & { done?: boolean }) => {
      /** An engine on its own clock whose first `budget` steps return; the next never does. */
      const engineWith = async (budget: number, at: number): Promise<[Engine, FakeClock]> => {
        const clock = new FakeClock(at)
        const engine = await env.engine({ leaseMs: LEASE, clock, maxRecoveryAttempts: 5 })
        const work = (i: number) =>
          i < budget || gates.done === true
            ? 'done'
            : new Promise<string>((resolve) => gates.push(() => resolve('late')))
        engine.register('job', 1, async (ctx) => {
          for (let i = 0; i < 10; i++)
            if (kind === 'local') await ctx.localStep(`s${i}`, () => work(i))
            else await ctx.transaction(`s${i}`, async () => work(i))
          return 'ok'
        })
        return [engine, clock]
      }
      const [first] = await engineWith(0, T0)
      const { runId } = await first.start('job', null)
      await sleep(300)
      // A takeover (recoveries 1) whose s0 commits, then s1 hangs: the recorded outcome is
      // said at once by a renewal — not at the periodic one, which a process dying every few
      // seconds would never reach — so the count is back to 0 with no clock moved.
      await engineWith(1, T0 + LEASE + 1)
      // Read from the store until the takeover has recorded s0 (a loaded machine may take a
      // while to claim and replay; no clock moves meanwhile, so only that renewal can say it).
      const s0 = await until(
        async () => (await first.getSteps(runId)).find((s) => s.name === 's0')?.status,
        'completed',
      )
      assert.equal(s0, 'completed')
      assert.equal(await until(async () => (await first.getRun(runId))?.recoveries, 0), 0)
      // A takeover that records nothing keeps counting: its claim makes it 1, and it stays 1.
      await engineWith(1, T0 + 2 * LEASE + 2) // s1 hangs again: nothing recorded
      assert.equal(await until(async () => (await first.getRun(runId))?.recoveries, 1), 1)
      await sleep(500)
      assert.equal((await first.getRun(runId))?.recoveries, 1, 'nothing recorded: still counted')
    }
  })
}
