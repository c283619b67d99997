/**
 * Schedules: input functions returning non-serializable values skip their window with a clear error.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { world } from './world.ts'

const MINUTE = 60_000

void test('input functions returning non-serializable values skip their window with a clear error', async () => {
  const w = world()
  try {
    const engine = await w.engine()
    engine.register('report', 1, async () => null)
    const circular: Record<string, unknown> = {}
    circular.self = circular
    const bad: Record<string, () => unknown> = {
      bigint: () => 10n,
      fn: () => () => 1,
      nan: () => NaN,
      undef: () => undefined,
      circular: () => circular,
      huge: () => 'x'.repeat(10 * 1024 * 1024),
      symbol: () => Symbol('s'),
      date: () => new Date(NaN),
    }
    for (const [id, input] of Object.entries(bad))
      await engine.schedule(id, { workflow: 'report', everyMs: MINUTE, input })
    await engine.schedule('good', { workflow: 'report', everyMs: MINUTE, input: () => 1 })
    for (let i = 0; i < 3; i++) await w.skip(MINUTE)
    // Not encodable by the codec: each window skipped, said at error, nothing started.
    for (const id of ['fn', 'circular', 'symbol', 'huge']) {
      const info = await engine.getSchedule(id)
      assert.deepEqual([id, info?.fired, info?.skipped], [id, 0, 3])
    }
    assert.ok(w.logs.some((l) => l.level === 'error'))
    // The others fire, each window once; the good one is never held up by the bad ones.
    assert.equal((await engine.getSchedule('good'))?.fired, 3)
  } finally {
    await w.close()
  }
})
