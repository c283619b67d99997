/**
 * Schedules: one window, one schedule:fired, even when a put lands mid-firing.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { world } from './world.ts'

const MINUTE = 60_000

void test('one window, one schedule:fired, even when a put lands mid-firing', async () => {
  const w = world()
  try {
    const engine = await w.engine()
    engine.register('report', 1, async () => null)
    let release: () => void = () => {}
    let calls = 0
    const input = async () => {
      calls += 1
      if (calls === 1) await new Promise<void>((r) => (release = r))
      return 'same'
    }
    await engine.schedule('s', { workflow: 'report', everyMs: MINUTE, input, overlap: 'skip' })
    const fired: string[] = []
    engine.on('schedule:fired', (e) => void fired.push(e.runId))
    const skipping = w.skip(MINUTE) // the firing waits in the input function
    // The firing is inside the input function (not a time guess: the machine may be busy).
    while (calls === 0) await new Promise((r) => setTimeout(r, 5))
    await engine.schedule('s', { workflow: 'report', everyMs: MINUTE, input, overlap: 'allow' })
    release()
    await skipping
    await w.skip(1_000)
    const { runs } = await engine.listRuns({ workflow: 'report', limit: 100 })
    assert.equal(runs.length, 1)
    assert.equal(fired.length, 1, 'one schedule:fired per window run')
  } finally {
    await w.close()
  }
})
