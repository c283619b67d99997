/**
 * Races the conformance suite does not run: many appends to one accumulator slot at once, and
 * appends racing claims. What must hold whatever the interleaving: no add is lost or applied
 * twice, a slot has one open accumulator (a batch fills to its size before the next opens),
 * and a claim hands out each payload once.
 */
import assert from 'node:assert/strict'
import type {
  ClaimedEventBatch,
  EventBatchAdd,
  EventRecord,
  StateStore,
} from '@cairn/core/contracts'

const T0 = 2_200_000_000_000
const KEEP_ALL = { before: 0, limit: 100 }
const LEASE = 60_000
const WORKFLOWS = ['digest', 'reindex']

function event(i: number): EventRecord {
  return { id: `e${i}`, name: 'order.paid', payload: JSON.stringify({ i }), publishedAt: T0 + i }
}

function batchAdd(i: number, maxSize: number, windowMs = 1000): EventBatchAdd {
  const spec = { windowMs, maxSize, maxWaitMs: null }
  return { workflow: 'digest', key: 'k', mode: 'batch', ...spec, openId: `batch-${i}` }
}

function debounceAdd(i: number): EventBatchAdd {
  const spec = { windowMs: 1000, maxSize: null, maxWaitMs: null }
  return { workflow: 'reindex', key: '', mode: 'debounce', ...spec, openId: `debounce-${i}` }
}

async function claimAll(store: StateStore, now: number, owner: string) {
  return store.claimEventBatches({ now, limit: 100, owner, leaseMs: LEASE, workflows: WORKFLOWS })
}

/**
 * `count` appends at once (spread over `stores`, connections to one database), each adding to
 * one batch slot (`maxSize`) and one debounce slot.
 */
export async function racingAppends(
  stores: readonly StateStore[],
  count: number,
  maxSize: number,
): Promise<void> {
  const answers = await Promise.all(
    Array.from({ length: count }, (_, i) =>
      (stores[i % stores.length] as StateStore).appendEvent(event(i), KEEP_ALL, [
        batchAdd(i, maxSize),
        debounceAdd(i),
      ]),
    ),
  )
  assert.ok(
    answers.every((a) => a.appended),
    'every append applied',
  )
  const { claimed } = await claimAll(stores[0] as StateStore, T0 + 100_000, 'engine-a')
  const digests = claimed.filter((b) => b.workflow === 'digest')
  const sizes = digests.map((b) => b.eventIds.length).sort((a, b) => b - a)
  const full = Math.floor(count / maxSize)
  const rest = count % maxSize === 0 ? [] : [count % maxSize]
  assert.deepEqual(sizes, [...Array<number>(full).fill(maxSize), ...rest], 'batches fill in turn')
  assert.deepEqual(
    digests.flatMap((b) => b.eventIds).sort(),
    Array.from({ length: count }, (_, i) => `e${i}`).sort(),
    'every event once',
  )
  const debounces = claimed.filter((b) => b.workflow === 'reindex')
  assert.equal(debounces.length, 1, 'one debounce accumulator')
  assert.equal(debounces[0]?.payloads.length, 1, 'holding one payload')
}

/**
 * `count` appends to one batch slot (due 1 ms after its first add) while claimers keep taking
 * what is due: every event reaches exactly one claimed accumulator.
 */
export async function appendsRacingClaims(
  stores: readonly StateStore[],
  count: number,
): Promise<void> {
  const taken: ClaimedEventBatch[] = []
  let appending = true
  const claimer = async (store: StateStore, owner: string) => {
    while (appending) {
      taken.push(...(await claimAll(store, T0 + 100_000, owner)).claimed)
      await new Promise((resolve) => setTimeout(resolve, 1))
    }
  }
  const claimers = stores.map((store, i) => claimer(store, `engine-${i}`))
  await Promise.all(
    Array.from({ length: count }, (_, i) =>
      (stores[i % stores.length] as StateStore).appendEvent(event(i), KEEP_ALL, [
        batchAdd(i, 1000, 1),
      ]),
    ),
  )
  appending = false
  await Promise.all(claimers)
  taken.push(...(await claimAll(stores[0] as StateStore, T0 + 100_000, 'engine-last')).claimed)
  assert.equal(new Set(taken.map((b) => b.id)).size, taken.length, 'each accumulator claimed once')
  assert.deepEqual(
    taken.flatMap((b) => b.eventIds).sort(),
    Array.from({ length: count }, (_, i) => `e${i}`).sort(),
    'every event in exactly one claimed accumulator',
  )
}
