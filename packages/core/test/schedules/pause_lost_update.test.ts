/**
 * Schedules: a pause writes over the revision it read — an update put between its read and its
 * write (a redeploy's declaration, another operator's engine.schedule) is read again, never
 * undone.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { StateStore } from '@cairn/core'
import { world } from './world.ts'

const MINUTE = 60_000

void test('a pause racing an update does not undo the update', async () => {
  const w = world()
  try {
    let gate: Promise<void> | null = null
    let readHeld = false
    let open: () => void = () => {}
    const gated = new Proxy(w.store, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver) as unknown
        if (key === 'getSchedule')
          return async (...args: unknown[]) => {
            const record = await (value as (...a: unknown[]) => Promise<unknown>).apply(
              target,
              args,
            )
            if (gate !== null) {
              readHeld = true
              await gate // the read reached the operator's engine late
            }
            return record
          }
        return typeof value === 'function' ? value.bind(target) : value
      },
    }) as StateStore
    const operator = await w.engine({ store: gated, drive: false })
    const deployer = await w.engine({ drive: false })
    await deployer.schedule('s', { workflow: 'report', everyMs: MINUTE })
    gate = new Promise((r) => (open = r))
    const pausing = operator.pauseSchedule('s')
    // The pause has read the schedule (and waits): the update lands between read and write.
    while (!readHeld) await new Promise((r) => setTimeout(r, 5))
    await deployer.schedule('s', { workflow: 'report', everyMs: 5 * MINUTE, paused: true })
    gate = null
    open()
    await pausing
    const info = await deployer.getSchedule('s')
    assert.equal(info?.everyMs, 5 * MINUTE, 'the update stands')
  } finally {
    await w.close()
  }
})
