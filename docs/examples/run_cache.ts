/**
 * docs/run-cache.md, runnable: a run that suspends at every iteration goes on from its paused
 * body when it wakes (the body is entered once); with `maxCachedRuns: 0` every wake replays
 * the history so far. Both record the same history, and each step runs once.
 */
import assert from 'node:assert/strict'
import { Engine, MemoryStore, silentLogger } from '@cairn/core'

async function poll(maxCachedRuns: number): Promise<{ entries: number; calls: number }> {
  let entries = 0
  let calls = 0
  // holdTimersUpToMs: 0 — every sleep suspends the run, however short.
  const engine = new Engine({
    store: new MemoryStore(),
    logger: silentLogger,
    holdTimersUpToMs: 0,
    maxCachedRuns,
  })
  engine.register('poll', 1, async (ctx) => {
    entries++
    for (let i = 0; i < 20; i++) {
      await ctx.localStep('check', () => calls++)
      await ctx.sleep(5)
    }
    return 'done'
  })
  await engine.startDriving()
  const { runId } = await engine.start('poll', null)
  assert.equal((await engine.waitForRun(runId, { timeoutMs: 10_000 })).status, 'completed')
  assert.equal((await engine.getSteps(runId)).length, 40)
  await engine.close()
  return { entries, calls }
}

const cached = await poll(1_000) // the default is 1,000 runs
const replayed = await poll(0)
assert.deepEqual(cached, { entries: 1, calls: 20 })
assert.deepEqual(replayed, { entries: 21, calls: 20 })
console.log(
  `cached: body entered ${cached.entries}×, 20 steps; without the cache: ${replayed.entries}× (one replay per wake)`,
)
