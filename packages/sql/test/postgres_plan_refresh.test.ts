/**
 * postgres/plan_refresh.ts on a real server: a runs table that grows past FIRST_BYTES within a
 * second gets its statements renamed (so re-planned on the table as it is) long before the 5 s
 * timer — the reads of its size come every CHECK_STATEMENTS statements — and the store goes on
 * working under the new names. With reads by time alone, connections kept generic plans made
 * on a few pages (a Seq Scan of the runs for each wave's lock) while the table grew.
 */
import assert from 'node:assert/strict'
import pg from 'pg'
import type { StoreOp } from '@cairn/core/contracts'
import { createPostgresStore } from '@cairn/sql/postgres'
import { CHECK_MS, FIRST_BYTES } from '../src/postgres/plan_refresh.ts'
import { PG_URL, adminQuery, dropSchema, pgTest, randomSchema } from './helpers/postgres.ts'

const T0 = 2_200_000_000_000
const BATCHES = 400

const create = (id: string): StoreOp => ({
  type: 'createRun',
  run: { id, workflow: 'w', version: 'v1', input: JSON.stringify('x'.repeat(200)), createdAt: T0 },
})

/** A pool that records the name of every prepared statement sent through it, and when. */
function namingPool(names: Map<string, number>): pg.Pool {
  const pool = new pg.Pool({ connectionString: PG_URL, max: 4 })
  const connect = pool.connect.bind(pool) as () => Promise<pg.PoolClient>
  Object.assign(pool, {
    connect: async () => {
      const client = await connect()
      const query = client.query.bind(client) as (config: unknown) => Promise<unknown>
      Object.assign(client, {
        query: (config: { name?: string }) => {
          if (config?.name !== undefined && !names.has(config.name))
            names.set(config.name, performance.now())
          return query(config)
        },
      })
      return client
    },
  })
  return pool
}

pgTest(
  'a runs table growing past FIRST_BYTES fast renames the statements before CHECK_MS',
  async () => {
    const names = new Map<string, number>()
    const pool = namingPool(names)
    const schema = randomSchema()
    const store = createPostgresStore({ pool, schema })
    const started = performance.now()
    try {
      await store.open()
      for (let batch = 0; batch < BATCHES; batch++) {
        const ops = Array.from({ length: 25 }, (_, i) => create(`r-${batch}-${i}`))
        const results = await store.applyBatch(ops, T0)
        assert.ok(
          results.every((r) => r.status === 'applied'),
          JSON.stringify(results[0]),
        )
      }
      const [row] = await adminQuery(`SELECT pg_relation_size('"${schema}".cairn_runs')`)
      const bytes = row?.[0]
      assert.ok(Number(bytes) >= 2 * FIRST_BYTES, `the table grew past FIRST_BYTES: ${bytes}`)
      const renamedAt = [...names].flatMap(([name, at]) => (/_g\d+$/.test(name) ? [at] : []))
      assert.ok(renamedAt.length > 0, 'statements renamed')
      const after = Math.min(...renamedAt) - started
      assert.ok(after < CHECK_MS, `renamed ${after.toFixed(0)} ms in: by the count, not the timer`)
      assert.equal((await store.getRun('r-0-0'))?.status, 'pending', 'works under the new names')
    } finally {
      await store.close()
      await dropSchema(schema)
      await pool.end()
    }
  },
)
