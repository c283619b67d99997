/**
 * A random race on one singleton key (limit 2) across three store instances on one schema:
 * creates admitted in their wave's statement and through the transactional pass (tagged),
 * cancels and failed finishes naming the key (settled after their commit), requeues and
 * promoteQueued. A sampler reads the key's admitted runs throughout (never above the limit);
 * at the end no waiter may sit beside a free slot, and no call may have failed. (Written by a
 * review of the in-wave admission.)
 */
import assert from 'node:assert/strict'
import type { StateStore } from '@cairn/core/contracts'
import { createPostgresStore } from '@cairn/sql/postgres'
import { KEY, LIMIT_ONE, T0, create } from './helpers/admission_hold.ts'
import { PG_URL, adminQuery, pgTest, storeInFreshSchema } from './helpers/postgres.ts'

const LIMIT = 2
const ADMISSION = { ...LIMIT_ONE, limit: LIMIT }
const ROUNDS = 60

pgTest(
  'racing creates (in-wave and through the pass), ends, requeues and promotions on one key: never over its limit, no waiter beside a free slot',
  async () => {
    const { store, schema, cleanup } = storeInFreshSchema({ max: 3 })
    const stores: StateStore[] = [store]
    for (let i = 0; i < 2; i++)
      stores.push(createPostgresStore({ connectionString: PG_URL, schema, max: 3 }))
    let seq = 0
    let now = T0
    const counts = async () => {
      const [row] = await adminQuery(
        `SELECT count(*) FILTER (WHERE status IN ('pending','running','waiting','parked')),
              count(*) FILTER (WHERE status = 'queued')
       FROM "${schema}".cairn_runs WHERE admission_key = $1`,
        [KEY.key],
      )
      return { admitted: Number(row?.[0]), queued: Number(row?.[1]) }
    }
    const liveRuns = async (statuses: string) =>
      (await adminQuery(
        `SELECT id, status, lease_epoch FROM "${schema}".cairn_runs
       WHERE admission_key = $1 AND status IN ${statuses} ORDER BY random() LIMIT 1`,
        [KEY.key],
      )) as [string, string, string][]
    let maxAdmitted = 0
    let sampling = true
    const failures: string[] = []
    try {
      for (const s of stores) await s.open()
      const sampler = (async () => {
        while (sampling) {
          maxAdmitted = Math.max(maxAdmitted, (await counts()).admitted)
          await new Promise((r) => setTimeout(r, 3))
        }
      })()
      const pick = <T>(xs: T[]) => xs[Math.floor(Math.random() * xs.length)] as T
      const actor = async (kind: number) => {
        for (let i = 0; i < ROUNDS; i++) {
          const s = pick(stores)
          const t = ++now
          const r = Math.random()
          try {
            if (r < 0.3) {
              const id = `r${++seq}`
              const claim = Math.random() < 0.5
              const tags = kind === 1 && Math.random() < 0.5 ? ['t'] : undefined
              const options = { admission: ADMISSION, createdAt: t, claim, leaseMs: 600_000 }
              await s.applyBatch(
                [create(id, tags === undefined ? options : { ...options, tags })],
                t,
              )
            } else if (r < 0.7) {
              const [run] = await liveRuns(
                Math.random() < 0.8 ? `('pending','running')` : `('queued')`,
              )
              if (run === undefined) continue
              await s.applyBatch(
                [{ type: 'cancelRun', runId: run[0], error: '"x"', admission: KEY }],
                t,
              )
            } else if (r < 0.85) {
              const [run] = await liveRuns(`('running')`)
              if (run !== undefined)
                await s.applyBatch(
                  [
                    {
                      type: 'finishRun',
                      fence: { runId: run[0], epoch: Number(run[2]) },
                      status: 'failed',
                      output: null,
                      error: '"boom"',
                      admission: KEY,
                    },
                  ],
                  t,
                )
            } else if (r < 0.95) {
              const [run] = await liveRuns(`('failed')`)
              if (run !== undefined)
                await s.requeueRun({ runId: run[0], epoch: Number(run[2]), resetSeqs: [], now: t })
            } else {
              await s.promoteQueued([KEY], t)
            }
          } catch (error) {
            failures.push(String(error))
          }
        }
      }
      await Promise.all([actor(0), actor(0), actor(1), actor(1), actor(2), actor(2)])
      sampling = false
      await sampler
      const end = await counts()
      assert.deepEqual(failures, [], 'no call failed')
      assert.ok(maxAdmitted <= LIMIT, `admitted ${maxAdmitted} > ${LIMIT}`)
      assert.ok(end.admitted <= LIMIT)
      assert.ok(end.queued === 0 || end.admitted === LIMIT, `stranded: ${JSON.stringify(end)}`)
    } finally {
      sampling = false
      for (const s of stores) await s.close()
      await cleanup()
    }
  },
)
