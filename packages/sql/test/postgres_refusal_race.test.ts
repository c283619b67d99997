/**
 * On Postgres a batch of saves is one autocommitted statement, so a save refused for the
 * outcome stored at its place (a late outcome of a cancelled run meeting the one recorded) is
 * explained by a read after the statement, outside any lock. A retention sweep deleting the run
 * in between left that read nothing to explain the refusal with, and applyBatch threw
 * E_STORE_FAILURE (the committer retried the whole batch). Now such a save reads as a save on a
 * missing run: fenced, no current run. (Found by a review; older than the read by key.)
 */
import assert from 'node:assert/strict'
import type { OpResult, StoreOp } from '@cairn/core/contracts'
import { createPostgresStore } from '@cairn/sql/postgres'
import { poolOfStore } from '../src/postgres/debug_access.ts'
import type { SqlPool } from '../src/shared/driver.ts'
import { PG_URL, pgTest, storeInFreshSchema } from './helpers/postgres.ts'

const T0 = 2_200_000_000_000

const save = (epoch: number, output: string): StoreOp => ({
  type: 'saveCheckpoint',
  fence: { runId: 'r', epoch },
  checkpoint: {
    runId: 'r',
    seq: 0,
    name: 's',
    kind: 'local',
    status: 'completed',
    attempts: 1,
    order: 1,
    input: null,
    output: JSON.stringify(output),
    error: null,
    wakeAt: null,
    startedAt: T0,
    updatedAt: T0,
    worker: null,
  },
})

pgTest(
  'a refused save whose run is deleted before the refusal is read: fenced, no run',
  async () => {
    const { store, schema, cleanup } = storeInFreshSchema()
    const sweeper = createPostgresStore({ connectionString: PG_URL, schema })
    try {
      await store.open()
      await sweeper.open()
      const created: StoreOp = {
        type: 'createRun',
        run: { id: 'r', workflow: 'w', version: 'v', input: '{}', createdAt: T0 },
        claim: { owner: 'e', leaseMs: 60_000 },
      }
      await store.applyBatch([created, save(1, 'first')], T0)
      await store.applyBatch([{ type: 'cancelRun', runId: 'r', error: '"x"' }], T0 + 1)
      const { leaseEpoch } = (await store.getRun('r')) ?? { leaseEpoch: -1 }
      // Without the race, a late outcome at the cancel's epoch meets the recorded one.
      const [plain] = await store.applyBatch([save(leaseEpoch, 'late')], T0 + 2)
      assert.equal(plain?.status, 'conflict')

      // The sweep deletes the run right after the wave's statement, before its explanation.
      const pool = poolOfStore.get(store) as SqlPool
      const query = pool.query.bind(pool)
      let sent = 0
      const swept: { trees?: Array<{ outcome: string }> } = {}
      pool.query = async (statement) => {
        const result = await query(statement)
        if (++sent === 1)
          Object.assign(swept, await sweeper.deleteRunTrees({ runIds: ['r'], maxRuns: 10 }))
        return result
      }
      const results: OpResult[] = await store.applyBatch([save(leaseEpoch, 'later')], T0 + 3)
      assert.equal(swept.trees?.[0]?.outcome, 'deleted', JSON.stringify(swept))
      assert.deepEqual(results, [{ status: 'fenced', current: null }])
    } finally {
      await sweeper.close()
      await store.close()
      await cleanup()
    }
  },
)
