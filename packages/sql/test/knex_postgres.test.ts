/**
 * The Postgres store on a Knex instance (pg): close() leaves Knex open, a connection the
 * server killed while the store held it does not reach the application again, and wake-ups
 * come through a listener opened with the settings Knex connects with.
 */
import assert from 'node:assert/strict'
import type { StoreOp } from '@cairn/core/contracts'
import type { Knex } from 'knex'
import pg from 'pg'
import { pgKnex, withKnexStore } from './helpers/knex.ts'
import { PG_URL, pgTest, terminateWhen } from './helpers/postgres.ts'

const T0 = 2_200_000_000_000

const create = (id: string, at = T0, claim = true): StoreOp => ({
  type: 'createRun',
  run: { id, workflow: 'w', version: 'v1', input: '{}', createdAt: at },
  ...(claim ? { claim: { owner: 'engine-a', leaseMs: 30_000 } } : {}),
})

pgTest('close() leaves the Knex instance open: the application goes on querying', async () => {
  const app = pgKnex(1)
  await withKnexStore(app, async (store, schema) => {
    await store.applyBatch([create('a')], T0)
    await store.close()
    const rows = (await app.raw(`SELECT id FROM "${schema}".cairn_runs`)) as pg.QueryResult
    assert.deepEqual(rows.rows, [{ id: 'a' }])
  })
})

pgTest(
  "a backend terminated while the store holds it is not handed back: the application's next query gets a new connection",
  async () => {
    const tag = `cairn-knex-${Math.random().toString(36).slice(2, 10)}`
    const app = pgKnex(1, { connectionString: PG_URL, application_name: tag })
    const pid = async () =>
      ((await app.raw('SELECT pg_backend_pid() AS pid')) as pg.QueryResult).rows[0]?.pid as number
    await withKnexStore(app, async (store, schema) => {
      await store.applyBatch([create('a')], T0)
      const before = await pid()
      const admin = new pg.Client({ connectionString: PG_URL })
      await admin.connect()
      try {
        await admin.query('BEGIN')
        await admin.query(`SELECT 1 FROM "${schema}".cairn_runs WHERE id = 'a' FOR UPDATE`)
        const renew = { type: 'renewLease', fence: { runId: 'a', epoch: 1 }, leaseMs: 1 } as const
        const writing = assert.rejects(
          store.applyBatch([renew], T0 + 1),
          (err: { code?: string; details?: { outcome?: string } }) => {
            assert.equal(err.code, 'E_STORE_FAILURE')
            assert.equal(err.details?.outcome, 'unknown', 'an autocommitted write cut off')
            return true
          },
        )
        await terminateWhen(tag, `wait_event_type = 'Lock'`)
        await writing
      } finally {
        await admin.query('ROLLBACK')
        await admin.end()
      }
      const after = await pid()
      assert.notEqual(after, before, 'a new connection')
      assert.equal((await store.getRun('a'))?.id, 'a', 'the store goes on too')
    })
  },
)

/** Knex's `connection` option in the shapes an application gives it. */
const SETTINGS: Record<string, Knex.Config['connection']> = {
  'a URL': PG_URL,
  'an object': { connectionString: PG_URL },
  'a function': () => ({ connectionString: PG_URL }),
}

for (const [shape, connection] of Object.entries(SETTINGS)) {
  pgTest(`wake-ups reach a watcher; Knex's connection given as ${shape}`, async () => {
    const app = pgKnex(2, connection)
    await withKnexStore(app, async (store) => {
      assert.ok(store.watchClaimable, 'the store pushes wake-ups')
      const woken: number[] = []
      let wake: () => void = () => undefined
      const stop = await store.watchClaimable((at) => {
        woken.push(at)
        wake()
      })
      const arrived = new Promise<void>((resolve) => (wake = resolve))
      await store.applyBatch([create('queued', T0 + 5, false)], T0 + 5)
      await Promise.race([arrived, new Promise((resolve) => setTimeout(resolve, 2_000))])
      assert.deepEqual(woken, [T0 + 5])
      await stop()
    })
  })
}
