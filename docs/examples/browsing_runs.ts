/**
 * docs/engine.md's "Browsing runs" example, runnable: the reads a dashboard makes — runs
 * filtered by version, creation window and id text, counts per status and workflow, and a
 * long timeline read one page at a time.
 */
import assert from 'node:assert/strict'
import { createTestEngine } from '@cairn/core/testing'

const t = await createTestEngine()
t.engine.register('import', 1, async (ctx, rows: number) => {
  for (let row = 0; row < rows; row++) await ctx.localStep(`row-${row}`, () => row * 10)
  return rows
})
t.engine.register('mailer', 1, async () => 'sent')

const since = t.clock.now()
await t.engine.start('import', 5, { runId: 'import-2026-01' })
await t.skipTime('1h')
await t.engine.start('import', 2, { runId: 'import-2026-02' })
await t.engine.start('mailer', null, { runId: 'mail-2026-02' })
await t.skipTime('1m')

// Runs created in the last hour whose id contains "2026-02" (a literal, case-sensitive text).
const recent = await t.engine.listRuns({ createdFrom: since + 3_600_000, idContains: '2026-02' })
assert.deepEqual(
  recent.runs.map((run) => run.id),
  ['mail-2026-02', 'import-2026-02'], // newest first (same time: by id, descending)
)
const v1 = await t.engine.listRuns({ workflow: 'import', version: '1', createdBefore: since + 1 })
assert.deepEqual(
  v1.runs.map((run) => run.id),
  ['import-2026-01'],
)

// Counts for a filter bar: per status ignoring the status filter, per workflow ignoring the
// workflow filter, every other filter applied.
const facets = await t.engine.facetRuns({ workflow: 'import', status: 'failed' })
assert.deepEqual(facets, {
  byStatus: { completed: 2 }, // import runs, any status
  byWorkflow: [], // failed runs, any workflow: none
})

// A long timeline, two steps at a time.
const seen: string[] = []
let fromSeq: number | null = 0
while (fromSeq !== null) {
  const page = await t.engine.getStepsPage('import-2026-01', { fromSeq, limit: 2 })
  seen.push(...page.steps.map((step) => `${step.name}=${String(step.output)}`))
  fromSeq = page.nextFromSeq
}
assert.deepEqual(seen, ['row-0=0', 'row-1=10', 'row-2=20', 'row-3=30', 'row-4=40'])

console.log(
  'browsing runs:',
  recent.runs.length,
  'recent runs,',
  seen.length,
  'steps read in pages',
)
await t.close()
