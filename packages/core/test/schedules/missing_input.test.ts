/**
 * Schedules: an engine lacking the input function leaves the schedule to one that has it, a
 * lease late at most; a sibling schedule of the same workflow is not held up meanwhile.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { world } from './world.ts'

const MINUTE = 60_000

void test('an engine lacking the input function leaves the schedule to one that has it', async () => {
  const w = world()
  try {
    // The having engine's claims reach the store a moment later than the lacking engine's
    // (network latency): both timers fire at the same due time.
    const slow = new Proxy(w.store, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver) as unknown
        if (key === 'claimDueSchedules')
          return async (...args: unknown[]) => {
            await new Promise((r) => setImmediate(r))
            return (value as (...a: unknown[]) => unknown).apply(target, args)
          }
        return typeof value === 'function' ? value.bind(target) : value
      },
    })
    const having = await w.engine({
      store: slow,
      leaseMs: 30_000,
      schedules: [{ id: 's', workflow: 'report', everyMs: MINUTE, input: () => 'computed' }],
    })
    having.register('report', 1, async () => null)
    const lacking = await w.engine({ leaseMs: 30_000 })
    lacking.register('report', 1, async () => null)
    const lags: number[] = []
    having.on('schedule:fired', (e) => void lags.push(e.lagMs))
    lacking.on('schedule:fired', (e) => void lags.push(e.lagMs))
    for (let i = 0; i < 10; i++) await w.skip(MINUTE)
    const info = await having.getSchedule('s')
    // A window the lacking engine claims first is released a lease away: late by a lease at
    // most, never lost, never started by the engine without the function.
    assert.ok(
      lags.every((lag) => lag <= 30_000),
      `windows fire within a lease of their time (lags ${lags.join(', ')})`,
    )
    assert.ok((info?.fired ?? 0) >= 9, `every window fires (fired ${info?.fired})`)
  } finally {
    await w.close()
  }
})
