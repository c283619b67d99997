/**
 * Schedules: timezone '' is refused (or read as UTC), never as the host's local time.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { world } from './world.ts'

void test("timezone '' is refused (or read as UTC), never as the host's local time", async () => {
  const w = world()
  try {
    const engine = await w.engine()
    engine.register('report', 1, async () => null)
    let info
    try {
      info = await engine.schedule('a', { workflow: 'report', cron: '0 3 * * *', timezone: '' })
    } catch (error) {
      assert.equal((error as { code?: string }).code, 'E_INVALID_ARGUMENT')
      return
    }
    assert.equal(info.nextAt?.toISOString(), '2030-01-01T03:00:00.000Z')
  } finally {
    await w.close()
  }
})
