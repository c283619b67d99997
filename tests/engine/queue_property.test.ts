/**
 * Named queues as a property (issue 15), over the memory store and SQLite: random
 * interleavings of starts, enqueues (random priorities and fairness keys), outcomes that give
 * the slot back, finishes (naming the queue or not), cancels, kills (a lease lapses and
 * another claim takes the run over: its slot stays held), lowered or raised concurrency and
 * grant sweeps, and a rate set once along the way. After every step, read from the store only
 * (inboxes and queueStats): no step grants above the concurrency written last (holders ≤
 * max(holders before, concurrency)), queueStats counts the holders the inboxes show, no
 * interval of the rate's period holds more than its limit of the grants seen since the rate
 * was written, and after a sweep no waiter sits beside a free slot (nothing leaked) unless the
 * rate holds it — then the sweep says when it may go. Slot leases of two owners join in:
 * granted items + unexpired leased slots stay within the same bound, and queueStats.leased is
 * what the store's answers add up to. Like the engine, a run enqueues an attempt only once the
 * previous one's outcome gave its item back.
 */
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { queueSlotMessage } from '@cairn/core/store-kit'
import type {
  Fence,
  QueueRateLimit,
  QueueRequest,
  StateStore,
  StoreOp,
} from '@cairn/core/contracts'
import { storeProperty } from '../helpers/property_stores.ts'

const T0 = 1_700_000_000_000
const LEASE_MS = 1_000
const Q = 'q'
const SEQ = 1
const RUNNABLE = [{ workflow: 'w', version: '1' }]

type Action =
  | { kind: 'start' }
  | { kind: 'enqueue'; pick: number; priority: number; key: string }
  | { kind: 'release'; pick: number; retry: boolean }
  | { kind: 'finish'; pick: number; named: boolean }
  | { kind: 'cancel'; pick: number }
  | { kind: 'kill'; pick: number }
  | { kind: 'limit'; concurrency: number }
  | { kind: 'sweep' }
  | { kind: 'rate'; limit: number; periodMs: number }
  | { kind: 'lease'; owner: string; want: number; inUse: number }

const pick = fc.nat({ max: 50 })
const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ kind: 'start' as const }) },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('enqueue' as const),
      pick,
      priority: fc.constantFrom(-3, 0, 0, 5),
      key: fc.constantFrom('', 'a', 'b'),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant('release' as const), pick, retry: fc.boolean() }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('finish' as const), pick, named: fc.boolean() }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancel' as const), pick }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('kill' as const), pick }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('limit' as const),
      concurrency: fc.integer({ min: 1, max: 4 }),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'sweep' as const }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('lease' as const),
      owner: fc.constantFrom('x', 'y'),
      want: fc.integer({ min: 0, max: 4 }),
      inUse: fc.integer({ min: 0, max: 4 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('rate' as const),
      limit: fc.integer({ min: 1, max: 3 }),
      periodMs: fc.integer({ min: 2, max: 20 }),
    }),
  },
)

interface Run {
  id: string
  epoch: number
  /** The attempt of its latest item (0: none yet). */
  attempt: number
  /** It has an item (enqueued, outcome not recorded). */
  item: boolean
  /** Its enqueue's result said it holds a slot (an own grant has no message). */
  ownGrant: boolean
  /** The attempt whose grant a check saw last (0: none). */
  seenGrant: number
  ended: boolean
}

class World {
  readonly #store: StateStore
  readonly #runs: Run[] = []
  #now = T0
  /** What the next enqueue writes as the queue's concurrency. */
  #concurrency = 2
  /** The concurrency the store holds (the last enqueue's), once one was written. */
  #written: number | null = null
  /** Holders at the last check. */
  #holders = 0
  /** The rate the next enqueue writes (set once: a changed rate counts differently). */
  #rate: QueueRateLimit | null = null
  /** Once an enqueue wrote the rate: the times of the grants checks saw since. */
  #rated: number[] | null = null
  /** Slot leases by owner, as the store answered them. */
  readonly #leases = new Map<string, { held: number; expiresAt: number }>()

  constructor(store: StateStore) {
    this.#store = store
  }

  async apply(a: Action): Promise<void> {
    this.#now += 1
    if (a.kind === 'start') return this.#start()
    if (a.kind === 'limit') {
      this.#concurrency = a.concurrency
      return
    }
    if (a.kind === 'sweep') return this.#sweep()
    if (a.kind === 'lease') return this.#lease(a.owner, a.want, a.inUse)
    if (a.kind === 'rate') {
      this.#rate ??= { limit: a.limit, periodMs: a.periodMs }
      return
    }
    const live = this.#runs.filter((r) => !r.ended)
    const run = live[a.pick % Math.max(1, live.length)]
    if (run === undefined) return
    if (a.kind === 'enqueue') return this.#enqueue(run, a.priority, a.key)
    if (a.kind === 'release') return this.#release(run, a.retry)
    if (a.kind === 'finish') return this.#finish(run, a.named)
    if (a.kind === 'cancel') return this.#cancel(run)
    return this.#kill(run)
  }

  async #start(): Promise<void> {
    const id = `r${this.#runs.length}`
    const run = { id, workflow: 'w', version: '1', input: 'null', createdAt: this.#now }
    const op: StoreOp = { type: 'createRun', run, claim: { owner: 'a', leaseMs: LEASE_MS } }
    const [result] = await this.#store.applyBatch([op], this.#now)
    assert.equal(result?.status, 'applied')
    this.#runs.push({
      id,
      epoch: 1,
      attempt: 0,
      item: false,
      ownGrant: false,
      seenGrant: 0,
      ended: false,
    })
  }

  #fence(run: Run): Fence {
    return { runId: run.id, epoch: run.epoch }
  }

  async #enqueue(run: Run, priority: number, fairnessKey: string): Promise<void> {
    if (run.item) return
    const attempt = run.attempt + 1
    const request: QueueRequest = {
      queue: Q,
      concurrency: this.#concurrency,
      attempt,
      priority,
      fairnessKey,
      rateLimit: this.#rate,
    }
    const checkpoint = cp(run.id, 'waiting', attempt - 1, this.#now)
    const op: StoreOp = {
      type: 'saveCheckpoint',
      fence: this.#fence(run),
      checkpoint,
      enqueue: request,
    }
    const [result] = await this.#store.applyBatch([op], this.#now)
    assert.equal(result?.status, 'applied', `enqueue ${run.id}`)
    run.attempt = attempt
    run.item = true
    run.ownGrant = result?.status === 'applied' && result.granted === true
    this.#written = this.#concurrency
    if (this.#rate !== null) this.#rated ??= []
  }

  async #release(run: Run, retry: boolean): Promise<void> {
    if (!run.item) return
    const checkpoint = cp(run.id, retry ? 'retrying' : 'completed', run.attempt, this.#now)
    if (retry) checkpoint.error = '"boom"'
    const op: StoreOp = { type: 'saveCheckpoint', fence: this.#fence(run), checkpoint, release: Q }
    const [result] = await this.#store.applyBatch([op], this.#now)
    assert.equal(result?.status, 'applied', `release ${run.id}`)
    run.item = false
    run.ownGrant = false
    // A completed position takes no more attempts here: the run goes on or ends.
    if (!retry) run.ended = await this.#end(run, true)
  }

  async #finish(run: Run, named: boolean): Promise<void> {
    run.ended = await this.#end(run, named)
  }

  async #end(run: Run, named: boolean): Promise<boolean> {
    const op: StoreOp = {
      type: 'finishRun',
      fence: this.#fence(run),
      status: 'completed',
      output: null,
      error: null,
      ...(named ? { releaseQueues: [Q] } : {}),
    }
    const [result] = await this.#store.applyBatch([op], this.#now)
    assert.equal(result?.status, 'applied', `finish ${run.id}`)
    return true
  }

  async #cancel(run: Run): Promise<void> {
    const op: StoreOp = { type: 'cancelRun', runId: run.id, error: '"stop"' }
    const [result] = await this.#store.applyBatch([op], this.#now)
    assert.equal(result?.status, 'applied', `cancel ${run.id}`)
    run.ended = true
  }

  /** The run's lease lapses and a claim takes it over (a new epoch): its item stays. */
  async #kill(run: Run): Promise<void> {
    this.#now += LEASE_MS
    const claimed = await this.#store.claimRuns({
      owner: 'b',
      now: this.#now,
      leaseMs: LEASE_MS,
      limit: 1000,
      runnable: RUNNABLE,
    })
    // Every live run's lease lapsed together: each is taken over, at its new epoch.
    for (const taken of claimed.claimed) {
      const known = this.#runs.find((r) => r.id === taken.id)
      if (known !== undefined) known.epoch = taken.leaseEpoch
    }
    assert.ok(
      claimed.claimed.some((r) => r.id === run.id),
      `${run.id} taken over`,
    )
  }

  /** An engine leases slots (leaseQueueSlots): never more than it asked or than the queue has. */
  async #lease(owner: string, want: number, inUse: number): Promise<void> {
    const lease = this.#store.leaseQueueSlots
    assert.ok(lease !== undefined, 'the store leases slots')
    const mine = this.#leases.get(owner)
    const held = mine !== undefined && mine.expiresAt > this.#now ? mine.held : 0
    // An engine tells what its attempts hold, never more than its lease (it hands out no more).
    const using = Math.min(inUse, held)
    const concurrency = this.#concurrency
    const request = { queue: Q, owner, want, inUse: using, concurrency, leaseMs: LEASE_MS }
    const answer = await lease.call(this.#store, request, this.#now)
    assert.ok(answer.held >= using, `slots in use kept: ${JSON.stringify(answer)}`)
    const grown = answer.held <= Math.max(using, Math.min(want, concurrency))
    assert.ok(grown, `within want and concurrency: ${JSON.stringify(answer)}`)
    assert.equal(answer.expiresAt, this.#now + LEASE_MS)
    this.#leases.set(owner, { held: answer.held, expiresAt: answer.expiresAt })
    this.#written = this.#concurrency
  }

  /** Slots of the leases unexpired now. */
  #leased(): number {
    let slots = 0
    for (const { held, expiresAt } of this.#leases.values())
      if (expiresAt > this.#now) slots += held
    return slots
  }

  async #sweep(): Promise<void> {
    const report = await this.#store.grantQueueSlots([Q], this.#now)
    const [stats] = await this.#store.queueStats([Q], this.#now)
    if (stats === undefined) return
    if (stats.waiting === 0 || stats.granted + stats.leased >= stats.concurrency) return
    // Waiters beside a free slot: only the rate may hold them, and the sweep says until when.
    // (queueStats.throttled counts from the grants the log holds, so it may show fewer than
    // the rule holds back — grants made before the rate was written count as made when the
    // first logged one was: docs/flow-control.md "Changing the rate".)
    const free = Math.min(stats.waiting, stats.concurrency - stats.granted - stats.leased)
    assert.ok(stats.throttled <= free, `throttled within the free slots: ${JSON.stringify(stats)}`)
    const [throttle] = report.throttled
    assert.ok(throttle !== undefined && throttle.retryAt > this.#now, 'the sweep says when')
  }

  /** Holders, from what the store said: an enqueue's own grant, or an unconsumed grant message. */
  async check(): Promise<void> {
    let holders = 0
    for (const run of this.#runs) {
      if (run.ended || !run.item) continue
      const inbox = await this.#store.loadInbox(run.id)
      if (!run.ownGrant && !inbox.some((m) => m.name === queueSlotMessage(SEQ))) continue
      holders += 1
      // A grant is made by the op just applied, at its `now`.
      if (run.seenGrant !== run.attempt) this.#rated?.push(this.#now)
      run.seenGrant = run.attempt
    }
    this.#checkRate()
    // Granted items and leased slots together: never above the concurrency written last
    // (or what was in use before it was lowered: nobody is evicted).
    const leased = this.#leased()
    const bound = Math.max(this.#holders, this.#written ?? 0)
    assert.ok(
      holders + leased <= bound,
      `${holders} holders + ${leased} leased: above the limit (${bound})`,
    )
    this.#holders = holders + leased
    const [stats] = await this.#store.queueStats([Q], this.#now)
    if (stats === undefined) return assert.equal(this.#written, null, 'the queue exists')
    assert.equal(stats.granted, holders, 'queueStats counts the holders the inboxes show')
    assert.equal(stats.leased, leased, 'queueStats counts the leases the store answered')
    assert.equal(stats.concurrency, this.#written, 'the last written concurrency')
  }

  /** No interval of the rate's period holds more than its limit of the grants seen. */
  #checkRate(): void {
    if (this.#rated === null || this.#rate === null) return
    const { limit, periodMs } = this.#rate
    const times = this.#rated
    const last = times.at(-1)
    if (last === undefined) return
    const inWindow = times.filter((t) => t > last - periodMs).length
    assert.ok(inWindow <= limit, `${inWindow} grants within ${periodMs} ms (limit ${limit})`)
  }
}

function cp(
  runId: string,
  status: 'waiting' | 'retrying' | 'completed',
  attempts: number,
  now: number,
) {
  return {
    runId,
    seq: SEQ,
    name: 'call',
    kind: 'step' as const,
    status,
    attempts,
    order: status === 'completed' ? 1 : null,
    input: null,
    output: status === 'completed' ? '1' : null,
    error: null as string | null,
    wakeAt: status === 'retrying' ? now + 10 : null,
    startedAt: now,
    updatedAt: now,
    worker: null,
  }
}

storeProperty('queue slots property', action, (store) => new World(store))
