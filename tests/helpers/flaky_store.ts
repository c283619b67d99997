/**
 * A StateStore wrapper that injects failures into applyBatch (F12): a batch that fails before
 * applying anything (store down), or one that applies and then reports failure (a connection
 * lost during COMMIT: outcome unknown).
 */
import type {
  ClaimRequest,
  ClaimResult,
  OpResult,
  StateStore,
  StoreOp,
} from '@cairn/core/contracts'

export class FlakyStore implements StateStore {
  readonly kind: string
  private failures: Array<'before' | 'after'> = []
  private readonly inner: StateStore
  private readonly watchers = new Set<(at: number) => void>()
  /** Set to give this store push wake-ups (like Postgres LISTEN/NOTIFY), off by default. */
  pushWakeups = false

  constructor(inner: StateStore) {
    this.inner = inner
    this.kind = `flaky-${inner.kind}`
  }

  /** The next `count` batches fail; `after`: they are applied first (outcome unknown). */
  failNext(count: number, when: 'before' | 'after' = 'before'): void {
    for (let i = 0; i < count; i++) this.failures.push(when)
  }

  get pendingFailures(): number {
    return this.failures.length
  }

  private loadFailures = 0
  private eventReadFailures = 0

  /** The next `count` loadEvents calls fail (the event log unreadable for a moment). */
  failNextEventReads(count: number): void {
    this.eventReadFailures += count
  }

  /** The next `count` loadCheckpoints calls fail (a read lost to a dropped connection). */
  failNextLoads(count: number): void {
    this.loadFailures += count
  }

  async applyBatch(ops: readonly StoreOp[], now: number): Promise<OpResult[]> {
    const failure = this.failures.shift()
    if (failure === 'before') throw new Error('injected: store unavailable')
    const results = await this.inner.applyBatch(ops, now)
    if (failure === 'after') throw new Error('injected: connection lost during COMMIT')
    this.hint(ops, results)
    return results
  }

  watchClaimable = async (onWake: (at: number) => void) => {
    this.watchers.add(onWake)
    return async () => void this.watchers.delete(onWake)
  }

  // A created-unclaimed run is claimable now: tell every watcher, as a NOTIFY would.
  private hint(ops: readonly StoreOp[], results: OpResult[]): void {
    if (!this.pushWakeups) return
    ops.forEach((op, i) => {
      if (op.type !== 'createRun' || op.claim !== undefined || results[i]?.status !== 'applied')
        return
      for (const watcher of this.watchers) watcher(op.run.createdAt)
    })
  }

  open = () => this.inner.open()
  close = () => this.inner.close()
  // A method, not a field like the others: HeldStore overrides it.
  claimRuns(request: ClaimRequest): Promise<ClaimResult> {
    return this.inner.claimRuns(request)
  }

  reclaimOwned: StateStore['reclaimOwned'] = (o, n) => this.inner.reclaimOwned(o, n)
  parkUnrunnable: StateStore['parkUnrunnable'] = (a, b, c, d) =>
    this.inner.parkUnrunnable(a, b, c, d)
  unpark: StateStore['unpark'] = (k, c, n) => this.inner.unpark(k, c, n)
  requeueRun: StateStore['requeueRun'] = (r) => this.inner.requeueRun(r)
  promoteQueued: StateStore['promoteQueued'] = (keys, now) => this.inner.promoteQueued(keys, now)
  admissionKeys: StateStore['admissionKeys'] = (query) => this.inner.admissionKeys(query)
  grantQueueSlots: StateStore['grantQueueSlots'] = (q, now) => this.inner.grantQueueSlots(q, now)
  queueStats: StateStore['queueStats'] = (q, now) => this.inner.queueStats(q, now)
  getRun: StateStore['getRun'] = (id) => this.inner.getRun(id)
  loadCheckpoints: StateStore['loadCheckpoints'] = async (id) => {
    if (this.loadFailures > 0) {
      this.loadFailures -= 1
      throw new Error('injected: read failed')
    }
    return this.inner.loadCheckpoints(id)
  }
  loadInbox: StateStore['loadInbox'] = (id) => this.inner.loadInbox(id)
  listRuns: StateStore['listRuns'] = (q) => this.inner.listRuns(q)
  facetRuns: StateStore['facetRuns'] = (q) => this.inner.facetRuns(q)
  loadCheckpointPage: StateStore['loadCheckpointPage'] = (id, page) =>
    this.inner.loadCheckpointPage(id, page)
  backlog: StateStore['backlog'] = (now) => this.inner.backlog(now)
  appendEvent: StateStore['appendEvent'] = (e, p, b) => this.inner.appendEvent(e, p, b)
  claimEventBatches: StateStore['claimEventBatches'] = (r) => this.inner.claimEventBatches(r)
  deleteEventBatch: StateStore['deleteEventBatch'] = (w, k, i) =>
    this.inner.deleteEventBatch(w, k, i)
  putSchedule: StateStore['putSchedule'] = (p) => this.inner.putSchedule(p)
  getSchedule: StateStore['getSchedule'] = (id) => this.inner.getSchedule(id)
  listSchedules: StateStore['listSchedules'] = (q) => this.inner.listSchedules(q)
  deleteSchedule: StateStore['deleteSchedule'] = (id) => this.inner.deleteSchedule(id)
  claimDueSchedules: StateStore['claimDueSchedules'] = (r) => this.inner.claimDueSchedules(r)
  advanceSchedule: StateStore['advanceSchedule'] = (a) => this.inner.advanceSchedule(a)
  loadEvents: StateStore['loadEvents'] = async (n, s) => {
    if (this.eventReadFailures > 0) {
      this.eventReadFailures -= 1
      throw new Error('injected: event log read failed')
    }
    return this.inner.loadEvents(n, s)
  }
  loadEventWaits: StateStore['loadEventWaits'] = (n) => this.inner.loadEventWaits(n)
  removeEventWaits: StateStore['removeEventWaits'] = (w) => this.inner.removeEventWaits(w)
  loadSearchAttributes: StateStore['loadSearchAttributes'] = (ids) =>
    this.inner.loadSearchAttributes(ids)
  retentionCutoff: StateStore['retentionCutoff'] = (q) => this.inner.retentionCutoff(q)
  expiredRuns: StateStore['expiredRuns'] = (q) => this.inner.expiredRuns(q)
  deleteRunTrees: StateStore['deleteRunTrees'] = (r) => this.inner.deleteRunTrees(r)
  appendStepLogs: StateStore['appendStepLogs'] = (a, now) => this.inner.appendStepLogs(a, now)
  loadStepLogs: StateStore['loadStepLogs'] = (id, page) => this.inner.loadStepLogs(id, page)
}
