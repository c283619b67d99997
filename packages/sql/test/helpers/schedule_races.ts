/**
 * Schedule races the conformance suite does not run (it races claims on one store): claimers
 * on several stores (connections, pools) of one database, and firing loops — claim, advance —
 * racing each other and puts. What must hold whatever the interleaving: a schedule is held by
 * one claimer per lease, an advance applies only for the holder at the current revision, and
 * the counters add up to exactly the advances that applied.
 */
import assert from 'node:assert/strict'
import type { SchedulePut, StateStore } from '@cairn/core/contracts'

const T0 = 2_200_000_000_000
const LEASE = 60_000
const WORKFLOWS = ['report', 'billing']

function put(id: string, nextAt: number, now = T0): SchedulePut {
  const workflow = Number(id.slice(1)) % 2 === 0 ? 'report' : 'billing'
  return { id, workflow, version: null, spec: `{"id":"${id}"}`, paused: false, nextAt, now }
}

function nth(stores: readonly StateStore[], i: number): StateStore {
  return stores[i % stores.length] as StateStore
}

/** `count` due schedules; `claimers` claims at once (spread over `stores`), `limit` each. */
export async function racingClaims(
  stores: readonly StateStore[],
  count: number,
  claimers: number,
  limit: number,
): Promise<void> {
  for (let i = 0; i < count; i++) await nth(stores, i).putSchedule(put(`s${i}`, T0 + i))
  const results = await Promise.all(
    Array.from({ length: claimers }, (_, i) =>
      nth(stores, i).claimDueSchedules({
        now: T0 + count,
        owner: `engine-${i}`,
        leaseMs: LEASE,
        limit,
        workflows: WORKFLOWS,
      }),
    ),
  )
  const taken = results.flatMap((r, i) => r.claimed.map((s) => [s.id, `engine-${i}`] as const))
  assert.equal(new Set(taken.map(([id]) => id)).size, taken.length, 'no schedule claimed twice')
  assert.equal(
    taken.length,
    Math.min(count, claimers * limit),
    'every due one, as far as limits go',
  )
  for (const [id, owner] of taken)
    assert.equal((await nth(stores, 0).getSchedule(id))?.leaseOwner, owner, `${id} is ${owner}'s`)
}

/**
 * Firing loops on every store, claiming (a short lease, lapsing while the loop lasts) and
 * advancing what they hold (fired + 1, due again at once), while a putter keeps bumping
 * revisions (making the advances of claims made before them stale): the stored counters equal
 * the advances that applied.
 */
export async function firingLoops(
  stores: readonly StateStore[],
  schedules: number,
  rounds: number,
): Promise<void> {
  for (let i = 0; i < schedules; i++) await nth(stores, i).putSchedule(put(`s${i}`, T0))
  let applied = 0
  let now = T0
  const loop = async (store: StateStore, owner: string) => {
    for (let round = 0; round < rounds; round++) {
      now += 1
      const at = now
      const { claimed } = await store.claimDueSchedules({
        now: at,
        owner,
        leaseMs: 5,
        limit: 3,
        workflows: WORKFLOWS,
      })
      for (const s of claimed) {
        const result = await store.advanceSchedule({
          id: s.id,
          owner,
          revision: s.revision,
          nextAt: at,
          lastWindow: at,
          lastRunId: `sch:${s.id}:${at}`,
          bufferedWindow: null,
          fired: 1,
          skipped: 0,
          now: at,
        })
        if (result === 'applied') applied++
      }
    }
  }
  const putter = async () => {
    for (let round = 0; round < rounds; round++) {
      const id = `s${round % schedules}`
      await nth(stores, round).putSchedule({ ...put(id, T0), now: T0 + round })
    }
  }
  await Promise.all([...stores.flatMap((s, i) => [loop(s, `a${i}`), loop(s, `b${i}`)]), putter()])
  const all = await nth(stores, 0).listSchedules({ limit: 1000 })
  const fired = all.reduce((sum, s) => sum + s.fired, 0)
  assert.equal(fired, applied, `the counters add up to the ${applied} advances applied`)
  assert.ok(applied > 0, 'some advances applied')
  assert.equal(
    all.reduce((sum, s) => sum + s.revision, 0),
    schedules + rounds,
    'every put bumped one revision',
  )
}
