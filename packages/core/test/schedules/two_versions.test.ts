/**
 * Schedules: two versions of a workflow with the same schedule register.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { world } from './world.ts'

void test('two versions of a workflow with the same schedule register', async () => {
  const w = world()
  try {
    const engine = await w.engine()
    const schedule = { everyMs: 60_000 }
    engine.register('ping', 1, async () => 1, { schedule })
    assert.doesNotThrow(() => engine.register('ping', 2, async () => 2, { schedule }))
  } finally {
    await w.close()
  }
})
