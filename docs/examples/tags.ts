/** docs/tags.md's example, runnable: tag runs at start, then list the runs carrying a tag. */
import assert from 'node:assert/strict'
import { createTestEngine } from '@cairn/core/testing'

const t = await createTestEngine()
t.engine.register('import', 1, async (ctx, file: string) => ctx.localStep('read', () => file))

const first = await t.engine.start('import', 'a.csv', { tags: ['tenant:acme', 'nightly'] })
await t.engine.start('import', 'b.csv', { tags: ['tenant:globex', 'nightly'] })
await t.engine.start('import', 'c.csv')

const acme = await t.engine.listRuns({ tag: 'tenant:acme' })
assert.deepEqual(
  acme.runs.map((r) => r.id),
  [first.runId],
)
assert.deepEqual(acme.runs[0]?.tags, ['tenant:acme', 'nightly'])
const nightly = await t.engine.listRuns({
  tag: 'nightly',
  status: ['pending', 'running', 'completed'],
})
assert.equal(nightly.runs.length, 2)

// Tags are checked at start: a duplicate is refused, not merged.
await assert.rejects(t.engine.start('import', 'd.csv', { tags: ['x', 'x'] }), {
  code: 'E_INVALID_ARGUMENT',
})
await t.close()
console.log('two nightly runs, one for tenant:acme')
