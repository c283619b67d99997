/** docs/testing.md's example, runnable: a two-hour sleep tested in milliseconds. */
import assert from 'node:assert/strict'
import { createTestEngine } from '@cairn/core/testing'

const t = await createTestEngine()
const sent: string[] = []
t.engine.register('remind', 1, async (ctx, to: string) => {
  await ctx.sleep('2h')
  await ctx.localStep('send', () => sent.push(to))
  return 'sent'
})
const { runId } = await t.engine.start('remind', 'ada@example.com')

await t.skipTime('1h')
assert.deepEqual(sent, []) // not early
await t.skipTime('1h')
assert.deepEqual(await t.engine.waitForRun(runId), { runId, status: 'completed', output: 'sent' })
assert.deepEqual(sent, ['ada@example.com'])
await t.close()
console.log('reminder sent after 2 fake hours')
