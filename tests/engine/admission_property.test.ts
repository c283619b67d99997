/**
 * Singleton admission as a property (issue 15), over the memory store and SQLite: random
 * interleavings of starts (some resubmitted, some with a claim), finishes, cancels, requeues
 * and killed holders (a lease left to lapse, then taken over) on three keys never put more
 * runs on a key than its limit; a key never has a waiter while a slot is free (every ending
 * here names its key, as the engine's do); waiters leave the queue in start order; and once
 * everything is driven to its end, no run is left queued or pending — no slot leaked.
 * Counts come from the runs as stored, never from what a store says about them.
 */
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { storeProperty } from '../helpers/property_stores.ts'
import { ADMITTED_STATUSES } from '@cairn/core/store-kit'
import type { Admission, RunRecord, StateStore, StoreOp } from '@cairn/core/contracts'

const KEYS = ['a', 'b', 'c'] as const
const LIMITS: Record<string, number> = { a: 1, b: 2, c: 3 }
const LEASE_MS = 1_000
const OWNER = 'prop'
const RUNNABLE = [{ workflow: 'w', version: '1' }]

type Action =
  | { kind: 'start'; key: number; onFull: 'reject' | 'queue'; claim: boolean; again: boolean }
  | { kind: 'finish'; pick: number; status: 'completed' | 'failed' }
  | { kind: 'cancel'; pick: number }
  | { kind: 'requeue'; pick: number }
  | { kind: 'kill'; pick: number }

const action: fc.Arbitrary<Action> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('start' as const),
      // Mostly the key of limit 1, mostly queueing: queues of several runs form often.
      key: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, fc.constant(1), fc.constant(2)),
      onFull: fc.oneof(
        { weight: 4, arbitrary: fc.constant('queue' as const) },
        fc.constant('reject' as const),
      ),
      claim: fc.boolean(),
      // Now and then a resubmit of the newest run's id (it must take no second slot).
      again: fc.oneof({ weight: 6, arbitrary: fc.constant(false) }, fc.constant(true)),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('finish' as const),
      pick: fc.nat(),
      status: fc.constantFrom('completed' as const, 'failed' as const),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancel' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('requeue' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('kill' as const), pick: fc.nat() }) },
)

class World {
  readonly store: StateStore
  now = 1_000_000
  created: string[] = []
  /** Per key, its queued runs in the order they entered the queue (the model of FIFO). */
  readonly queues = new Map<string, string[]>()

  constructor(store: StateStore) {
    this.store = store
  }

  admission(key: string, onFull: 'reject' | 'queue'): Admission {
    return { scope: 'w', key, limit: LIMITS[key] as number, onFull, maxQueueDepth: null }
  }

  async all(): Promise<RunRecord[]> {
    const runs: RunRecord[] = []
    for (const id of this.created) {
      const run = await this.store.getRun(id)
      if (run !== null) runs.push(run)
    }
    return runs
  }

  pick(runs: readonly RunRecord[], n: number, statuses: readonly string[]): RunRecord | null {
    const open = runs.filter((r) => statuses.includes(r.status))
    return open.length === 0 ? null : (open[n % open.length] as RunRecord)
  }

  async apply(a: Action): Promise<void> {
    this.now += 10
    const runs = await this.all()
    switch (a.kind) {
      case 'start': {
        const key = KEYS[a.key] as string
        const id =
          a.again && this.created.length > 0
            ? (this.created.at(-1) as string)
            : `r${this.created.length}`
        const op: StoreOp = {
          type: 'createRun',
          run: { id, workflow: 'w', version: '1', input: JSON.stringify(key), createdAt: this.now },
          admission: this.admission(key, a.onFull),
          ...(a.claim ? { claim: { owner: OWNER, leaseMs: LEASE_MS } } : {}),
        }
        const [result] = await this.store.applyBatch([op], this.now)
        if (result?.status === 'applied' && !this.created.includes(id)) this.created.push(id)
        return
      }
      case 'finish': {
        const run = this.pick(runs, a.pick, ['pending', 'running'])
        if (run === null) return
        const epoch = await this.lease(run)
        if (epoch === null) return
        await this.store.applyBatch(
          [
            {
              type: 'finishRun',
              fence: { runId: run.id, epoch },
              status: a.status,
              output: a.status === 'completed' ? '1' : null,
              error: a.status === 'failed' ? '{}' : null,
              admission: run.admission ?? undefined,
            },
          ],
          this.now,
        )
        return
      }
      case 'cancel': {
        const run = this.pick(runs, a.pick, ['queued', 'pending', 'running', 'waiting'])
        if (run !== null)
          await this.store.applyBatch(
            [
              {
                type: 'cancelRun',
                runId: run.id,
                error: '{}',
                admission: run.admission ?? undefined,
              },
            ],
            this.now,
          )
        return
      }
      case 'requeue': {
        const run = this.pick(runs, a.pick, ['failed'])
        if (run !== null)
          await this.store.requeueRun({
            runId: run.id,
            epoch: run.leaseEpoch,
            resetSeqs: [],
            now: this.now,
          })
        return
      }
      case 'kill': {
        // A holder dies mid-turn: its lease lapses and another claim takes the run over.
        const run = this.pick(runs, a.pick, ['pending', 'running'])
        if (run === null) return
        await this.lease(run)
        this.now += LEASE_MS + 1
        return
      }
    }
  }

  /** Every run claimable now (pending, or running with a lapsed lease), leased. */
  async claimAll(): Promise<RunRecord[]> {
    const request = { owner: OWNER, now: this.now, leaseMs: LEASE_MS, limit: 1000 }
    return (await this.store.claimRuns({ ...request, runnable: RUNNABLE })).claimed
  }

  /** Claims `run` (pending, or running with a lapsed lease) or uses its claim; its epoch. */
  async lease(run: RunRecord): Promise<number | null> {
    if (run.status === 'running' && (run.availableAt ?? 0) > this.now) return run.leaseEpoch
    const claimed = await this.claimAll()
    // Claims are leases, not ends: everything claimed stays running (held) until finished.
    return claimed.find((r) => r.id === run.id)?.leaseEpoch ?? null
  }

  /** The invariants, from the runs as stored. */
  async check(): Promise<void> {
    const runs = await this.all()
    for (const key of KEYS) {
      const mine = runs.filter((r) => r.admission?.key === key)
      const admitted = mine.filter((r) =>
        (ADMITTED_STATUSES as readonly string[]).includes(r.status),
      )
      const queued = mine.filter((r) => r.status === 'queued')
      const limit = LIMITS[key] as number
      assert.ok(admitted.length <= limit, `key ${key}: ${admitted.length} admitted, limit ${limit}`)
      if (queued.length > 0)
        assert.equal(
          admitted.length,
          limit,
          `key ${key}: ${queued.length} waiting beside a free slot`,
        )
      this.checkOrder(key, mine)
    }
  }

  /** Runs leave a key's queue (other than by a cancel) in the order they entered it. */
  checkOrder(key: string, mine: readonly RunRecord[]): void {
    const status = new Map(mine.map((r) => [r.id, r.status]))
    const queue = this.queues.get(key) ?? []
    const promoted = queue.filter((id) => !['queued', 'cancelled'].includes(status.get(id) ?? ''))
    const first = queue.filter((id) => status.get(id) !== 'cancelled').slice(0, promoted.length)
    assert.deepEqual(promoted, first, `key ${key}: promoted out of start order`)
    const rest = queue.filter((id) => status.get(id) === 'queued')
    for (const r of mine) if (r.status === 'queued' && !rest.includes(r.id)) rest.push(r.id)
    this.queues.set(key, rest)
  }

  /** Finish everything, claiming what becomes claimable, until nothing is open. */
  async finish(): Promise<void> {
    for (let round = 0; round < 200; round++) {
      this.now += LEASE_MS + 1
      const claimed = await this.claimAll()
      if (claimed.length === 0) break
      await this.store.applyBatch(
        claimed.map((r) => ({
          type: 'finishRun' as const,
          fence: { runId: r.id, epoch: r.leaseEpoch },
          status: 'completed' as const,
          output: '1',
          error: null,
          admission: r.admission ?? undefined,
        })),
        this.now,
      )
      await this.check()
    }
    const open = (await this.all()).filter(
      (r) => !['completed', 'failed', 'cancelled'].includes(r.status),
    )
    assert.deepEqual(
      open.map((r) => `${r.id}:${r.status}`),
      [],
      'every run ended: no slot leaked, no waiter stranded',
    )
  }
}

storeProperty('admission property', action, (store) => new World(store))
