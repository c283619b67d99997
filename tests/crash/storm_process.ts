/**
 * A restart-storm engine process, written the way a user writes one: open the store, register,
 * then resubmit every run it is responsible for (`engine.start` with the run's id — the
 * ordinary "retry after a crash") and send each its signal (with a signal id), every time it
 * starts. A random part of the resubmits goes out before `startDriving()`, concurrently with
 * the reclaim of the runs the previous process (same instance id) held; the rest right after.
 * Prints its phases (`booted`, `driving`, `submitted`, `signalled`) so the test knows where a
 * kill landed. Env: STORM_RUNS, STORM_LEDGER, the store (child_store.ts), CRASH_LOG.
 */
import { Engine, StoreFailureError } from '@cairn/core'
import { childLogger } from './child_observers.ts'
import { openStore } from './child_store.ts'
import { registerStorm, stormInput, stormRunId } from './storm_workflow.ts'

const runs = Number(process.env.STORM_RUNS)
const engine = new Engine({
  store: await openStore(),
  logger: childLogger(),
  instanceId: 'storm-engine',
  // Few runs at a time and steps of 5–15 ms: the work outlasts several kills, so they land on it.
  concurrency: 20,
  leaseMs: 2_000,
  holdTimersUpToMs: 100,
  pollIntervalMs: 50,
})
registerStorm(engine, process.env.STORM_LEDGER as string)

const say = (phase: string) => process.stdout.write(`${phase}\n`)

/** Retries what a store hiccup refused (E_STORE_FAILURE is the documented caller contract). */
async function retried<T>(call: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call()
    } catch (error) {
      if (!StoreFailureError.is(error) || attempt >= 50) throw error
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }
}

async function inChunks(ids: readonly number[], each: (id: number) => Promise<unknown>) {
  for (let i = 0; i < ids.length; i += 200) await Promise.all(ids.slice(i, i + 200).map(each))
}

const submit = (ids: readonly number[]) =>
  inChunks(ids, (id) =>
    retried(() => engine.start('storm', stormInput(id), { runId: stormRunId(id) })),
  )

const ids = Array.from({ length: runs }, (_, id) => id).sort(() => Math.random() - 0.5)
const split = Math.floor(Math.random() * runs)
say('booted')
const early = submit(ids.slice(0, split)) // racing startDriving's reclaim of this id's runs
await engine.startDriving()
say('driving')
await Promise.all([early, submit(ids.slice(split))])
say('submitted')
await inChunks(ids, (id) =>
  retried(() =>
    engine.signal({ runId: stormRunId(id), name: 'go' }, id, { signalId: `storm-${id}-go` }),
  ),
)
say('signalled')
setInterval(() => {}, 1_000) // stay alive until killed
