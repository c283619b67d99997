/**
 * Run priority as a property (issue 15), over the memory store and SQLite: random creates (at
 * random priorities, due now or later), claims of random limits and oldest shares, finishes
 * and the passing of time; every claim must take exactly the runs a model of the rule picks —
 * the `oldest` due runs by availableAt, then the rest by priority, highest first, then
 * availableAt — in that order, and report the earliest availableAt it did not take. Every
 * availableAt is distinct, so the rule decides every order (ties are not the contract's).
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { withMemoryStores, withSqliteStores, type OpenStore } from '../helpers/property_stores.ts'
import type { RunRecord, StateStore } from '@cairn/core/contracts'

const T0 = 1_700_000_000_000
/** Longer than any test: a claimed run is never due again. */
const LEASE_MS = 1_000_000_000
const RUNNABLE = [{ workflow: 'w', version: '1' }]

type Action =
  | { kind: 'create'; priority: number; later: number }
  | { kind: 'claim'; limit: number; oldest: number }
  | { kind: 'finish'; pick: number }
  | { kind: 'tick' }

const action: fc.Arbitrary<Action> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('create' as const),
      priority: fc.constantFrom(-1000, -5, 0, 0, 0, 3, 9, 1000),
      later: fc.constantFrom(0, 0, 0, 1, 2),
    }),
  },
  {
    weight: 3,
    arbitrary: fc
      .record({ limit: fc.integer({ min: 1, max: 5 }), share: fc.integer({ min: 0, max: 5 }) })
      .map(({ limit, share }) => ({
        kind: 'claim' as const,
        limit,
        oldest: Math.min(share, limit),
      })),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('finish' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'tick' as const }) },
)

interface ModelRun {
  id: string
  priority: number
  availableAt: number
  leased: boolean
}

/** Time moves in buckets of 1,000 ms; run n of a bucket is due at bucket start + n. */
class World {
  readonly #store: StateStore
  readonly #runs: ModelRun[] = []
  #bucket = 0
  #created = 0
  #epochs = new Map<string, number>()

  constructor(store: StateStore) {
    this.#store = store
  }

  get #now(): number {
    return T0 + this.#bucket * 1_000 + 999
  }

  async apply(a: Action): Promise<void> {
    if (a.kind === 'tick') this.#bucket++
    else if (a.kind === 'create') await this.#create(a.priority, a.later)
    else if (a.kind === 'claim') await this.#claim(a.limit, a.oldest)
    else await this.#finish(a.pick)
  }

  async #create(priority: number, later: number): Promise<void> {
    const n = this.#created++
    const id = `r-${String(n).padStart(3, '0')}`
    const availableAt = T0 + (this.#bucket + later) * 1_000 + n
    const run = { id, workflow: 'w', version: '1', input: '{}', createdAt: availableAt, priority }
    const [result] = await this.#store.applyBatch([{ type: 'createRun', run }], this.#now)
    assert.equal(result?.status, 'applied')
    this.#runs.push({ id, priority, availableAt, leased: false })
  }

  async #claim(limit: number, oldest: number): Promise<void> {
    const now = this.#now
    const due = this.#runs
      .filter((r) => !r.leased && r.availableAt <= now)
      .sort((a, b) => a.availableAt - b.availableAt)
    const first = due.slice(0, oldest)
    const rest = due
      .slice(oldest)
      .sort((a, b) => b.priority - a.priority || a.availableAt - b.availableAt)
    const expected = [...first, ...rest].slice(0, limit)
    const result = await this.#store.claimRuns({
      owner: 'prop',
      now,
      leaseMs: LEASE_MS,
      limit,
      oldest,
      runnable: RUNNABLE,
    })
    const what = `claim at ${now} of ${limit}, oldest ${oldest}`
    assert.deepEqual(
      result.claimed.map((r) => r.id),
      expected.map((r) => r.id),
      what,
    )
    for (const run of expected) {
      run.leased = true
      run.availableAt = now + LEASE_MS
    }
    for (const run of result.claimed) this.#epochs.set(run.id, run.leaseEpoch)
    const left = this.#runs.filter((r) => !expected.includes(r)).map((r) => r.availableAt)
    const next = left.length === 0 ? null : Math.min(...left)
    assert.equal(result.nextAvailableAt, next, `${what}: nextAvailableAt`)
  }

  async #finish(pick: number): Promise<void> {
    const leased = this.#runs.filter((r) => r.leased)
    const run = leased[pick % Math.max(1, leased.length)]
    if (run === undefined) return
    const fence = { runId: run.id, epoch: this.#epochs.get(run.id) as number }
    const op = { type: 'finishRun' as const, fence, status: 'completed' as const }
    const [result] = await this.#store.applyBatch([{ ...op, output: '1', error: null }], this.#now)
    assert.equal(result?.status, 'applied')
    this.#runs.splice(this.#runs.indexOf(run), 1)
  }

  /** Every run as stored keeps the priority it was created with. */
  async check(): Promise<void> {
    for (const run of this.#runs) {
      const stored = (await this.#store.getRun(run.id)) as RunRecord
      assert.equal(stored.priority, run.priority, `${run.id}'s priority`)
    }
  }
}

async function property(open: OpenStore, numRuns: number) {
  await fc.assert(
    fc.asyncProperty(fc.array(action, { minLength: 5, maxLength: 80 }), async (actions) => {
      const { store, close } = await open()
      try {
        const world = new World(store)
        for (const a of actions) await world.apply(a)
        await world.check()
      } finally {
        await close()
      }
    }),
    { numRuns },
  )
}

void test('priority claim property on the memory store', async () => {
  await withMemoryStores((open) => property(open, 300))
})

void test('priority claim property on SQLite', async () => {
  await withSqliteStores((open) => property(open, 60))
})
