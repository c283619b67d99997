/**
 * Schedules: a hanging input function does not stop other schedules firing; a hanging input function wedges every engine of the fleet in turn.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { world } from './world.ts'

const MINUTE = 60_000

void test('a hanging input function does not stop other schedules firing', async () => {
  const w = world()
  try {
    const engine = await w.engine()
    engine.register('report', 1, async () => null)
    await engine.schedule('hangs', {
      workflow: 'report',
      everyMs: MINUTE,
      input: () => new Promise(() => {}),
    })
    await engine.schedule('fine', { workflow: 'report', everyMs: MINUTE, input: 'x' })
    for (let i = 0; i < 5; i++) await w.skip(MINUTE)
    const fine = await engine.getSchedule('fine')
    assert.equal(fine?.fired, 5, "'fine' fires every window")
  } finally {
    await w.close()
  }
})

void test('a hanging input function wedges every engine of the fleet in turn', async () => {
  const w = world()
  try {
    const declared = [
      { id: 'hangs', workflow: 'report', everyMs: MINUTE, input: () => new Promise(() => {}) },
      { id: 'fine', workflow: 'report', everyMs: MINUTE, input: () => 'x' },
    ]
    const engines = [
      await w.engine({ schedules: declared, leaseMs: 10_000 }),
      await w.engine({ schedules: declared, leaseMs: 10_000 }),
    ]
    for (const e of engines) e.register('report', 1, async () => null)
    for (let i = 0; i < 10; i++) await w.skip(MINUTE)
    const fine = await engines[0]!.getSchedule('fine')
    assert.ok(
      (fine?.fired ?? 0) >= 9,
      `'fine' keeps firing on some engine (fired ${fine?.fired} of 10)`,
    )
  } finally {
    await w.close()
  }
})
