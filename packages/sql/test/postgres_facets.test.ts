/**
 * facetRuns on a Postgres database whose default collation is not byte order (many are
 * created `en_US.UTF-8`): workflow names are plain TEXT there, so the tie order of the
 * workflow facet must ask for code point order itself (`COLLATE "C"`), as every store does.
 * The test databases are `C.UTF-8`, so the column is given an ICU collation here.
 */
import assert from 'node:assert/strict'
import { adminQuery, pgTest, storeInFreshSchema } from './helpers/postgres.ts'

pgTest('workflow facet ties are in code point order under a linguistic collation', async () => {
  const { store, schema, cleanup } = storeInFreshSchema()
  try {
    await store.open()
    await adminQuery(
      `ALTER TABLE "${schema}".cairn_runs ALTER COLUMN workflow TYPE TEXT COLLATE "en-US-x-icu"`,
    )
    const names = ['b-report', 'B-report', 'a-report', 'A-report']
    await store.applyBatch(
      names.map((workflow, i) => ({
        type: 'createRun' as const,
        run: { id: `run-${i}`, workflow, version: 'v1', input: '{}', createdAt: 1_000 + i },
      })),
      2_000,
    )
    const { byWorkflow } = await store.facetRuns({})
    // Code point order: uppercase before lowercase; en-US would give a, A, b, B.
    assert.deepEqual(
      byWorkflow.map((facet) => facet.workflow),
      ['A-report', 'B-report', 'a-report', 'b-report'],
    )
  } finally {
    await store.close()
    await cleanup()
  }
})
