/**
 * The SQLite StateStore's calls, written once over a PreparedConnection: writes in BEGIN
 * IMMEDIATE transactions, reads on prepared statements. Where the connection comes from is a
 * subclass's business: SqliteStore opens its own (node:sqlite) and keeps it; the store on a
 * Knex instance (knex/) borrows Knex's better-sqlite3 connection for each call.
 */
import { StoreFailureError } from '@cairn/core'
import {
  checkCheckpointPage,
  checkCreateOp,
  checkBacklogTime,
  checkCheckpointQueue,
  checkClaimEventBatches,
  checkClaimSchedules,
  checkEventBatchAdds,
  checkEventBatchRef,
  checkFinishOp,
  checkPromoteKeys,
  checkQueueLease,
  checkQueueNames,
  checkRequeueRequest,
  checkScheduleAdvance,
  checkScheduleId,
  checkScheduleList,
  checkSchedulePut,
  checkDeleteRunTrees,
  checkExpiredRuns,
  checkRetentionCutoff,
  checkCheckpointLogs,
  checkStepLogAppends,
  checkStepLogPage,
  checkInboxAfter,
} from '@cairn/core/store-kit'
import type {
  CheckpointPage,
  CheckpointRecord,
  ClaimEventBatchesRequest,
  ClaimedEventBatches,
  ClaimedSchedules,
  ClaimRequest,
  ClaimResult,
  ClaimSchedulesRequest,
  EventAppend,
  EventBatchAdd,
  EventPruning,
  EventRecord,
  EventWaitRecord,
  EventWaitRef,
  InboxMessage,
  ListRunsQuery,
  OpResult,
  ParkReason,
  RequeueRequest,
  AdmissionKey,
  AdmissionKeyPage,
  AdmissionKeysQuery,
  QueueGrantReport,
  QueueLease,
  QueueLeaseRequest,
  QueueStats,
  QueueThrottle,
  RequeueResult,
  RunFacetQuery,
  RunFacets,
  RunBacklog,
  RunPage,
  RunRecord,
  ScheduleAdvance,
  ScheduleAdvanceResult,
  ScheduleListQuery,
  SchedulePut,
  ScheduleRecord,
  SearchAttributes,
  SlotGrant,
  StateStore,
  StoreOp,
  WorkflowKey,
  DeleteRunTreesRequest,
  DeleteRunTreesResult,
  ExpiredRunsQuery,
  FinishedPosition,
  RetentionCutoffQuery,
  StepLogAppend,
  StepLogPage,
  StepLogRecord,
} from '@cairn/core/contracts'
import { backlogSql, toRunBacklog } from '../shared/backlog.ts'
import { CallGate } from '../shared/call_gate.ts'
import { claimRuns } from './claim_runs.ts'
import { appendEvent, loadEventWaits, loadEvents, removeEventWaits } from './ops/event_ops.ts'
import { claimBatches, deleteBatch, nextBatchAt } from './ops/event_batches.ts'
import {
  advanceSchedule,
  claimSchedules,
  deleteSchedule,
  getSchedule,
  listSchedules,
  nextScheduleAt,
  putSchedule,
} from './ops/schedules.ts'
import { facetRuns } from './facet_runs.ts'
import { listRuns } from './list_runs.ts'
import { loadSearchAttributes } from './load_attributes.ts'
import { deleteRunTrees, expiredRuns, retentionCutoff } from './retention.ts'
import { appendStepLogs, loadStepLogs } from './step_logs.ts'
import { parkUnrunnable, reclaimOwned, unpark } from './maintenance.ts'
import { applyOp } from './ops/apply_op.ts'
import type { PreparedConnection } from './prepared_connection.ts'
import {
  toCheckpointRecord,
  toInboxMessage,
  toRunRecord,
  type CheckpointRow,
  type MessageRow,
  type RunRow,
} from './row_mapping.ts'
import { requeueRun } from './requeue.ts'
import { promoteAdmission } from './ops/admission.ts'
import { admissionKeys } from './admission_keys.ts'
import { deliveredGrants, grantQueues } from './ops/queue_grants.ts'
import { leaseQueue } from './ops/queue_leases.ts'
import { queueStats } from './queue_stats.ts'
import { inImmediateTransaction } from './transaction.ts'

export abstract class SqliteStoreBase implements StateStore {
  readonly kind = 'sqlite'
  /** Calls that may outlive a synchronous step: close() waits for them. */
  protected readonly gate = new CallGate()
  #opening: Promise<void> | null = null
  #closing: Promise<void> | null = null

  open(): Promise<void> {
    if (this.#closing) return Promise.reject(closedError('open'))
    this.#opening ??= this.connect().catch((err: unknown) => {
      this.#opening = null // a failed open may be retried
      throw err
    })
    return this.#opening
  }

  close(): Promise<void> {
    this.#closing ??= this.#close()
    return this.#closing
  }

  applyBatch(ops: readonly StoreOp[], now: number): Promise<OpResult[]> {
    return this.call('applyBatch', (c) => {
      if (ops.length === 0) return []
      for (const op of ops) checkOp(op) // refused before anything is written
      return inTransaction(c, () => ops.map((op) => applyOp(c.s, op, now)))
    })
  }

  claimRuns(request: ClaimRequest): Promise<ClaimResult> {
    return this.#write('claimRuns', ({ s, cache }) => claimRuns(s, cache, request))
  }

  reclaimOwned(owner: string, now: number): Promise<number> {
    return this.#write('reclaimOwned', ({ s }) => reclaimOwned(s, owner, now))
  }

  parkUnrunnable(
    runnable: readonly WorkflowKey[],
    olderThan: number,
    reason: ParkReason,
    now: number,
  ): Promise<number> {
    return this.#write('parkUnrunnable', ({ cache }) =>
      parkUnrunnable(cache, runnable, olderThan, reason, now),
    )
  }

  unpark(keys: readonly WorkflowKey[], reasonCode: string, now: number): Promise<number> {
    return this.#write('unpark', ({ cache }) => unpark(cache, keys, reasonCode, now))
  }

  /** One transaction per key, each under SQLite's one writer (ops/admission.ts). */
  promoteQueued(keys: readonly AdmissionKey[], now: number): Promise<number> {
    return this.call('promoteQueued', (c) => {
      checkPromoteKeys(keys)
      let promoted = 0
      for (const { scope, key } of keys)
        promoted += inTransaction(c, () => promoteAdmission(c.s, scope, key, now))
      return promoted
    })
  }

  /** One read: the shared statement (admission_keys.ts). */
  admissionKeys(query: AdmissionKeysQuery): Promise<AdmissionKeyPage> {
    return this.call('admissionKeys', ({ cache }) => admissionKeys(cache, query))
  }

  /** One transaction per queue, each under SQLite's one writer (ops/queue_grants.ts). */
  grantQueueSlots(queues: readonly string[], now: number): Promise<QueueGrantReport> {
    // Kept across busy retries: a retry runs only the passes that had not committed, so each
    // queue's pass is reported once.
    const done = new Set<string>()
    const grants: SlotGrant[] = []
    const throttled: QueueThrottle[] = []
    return this.call('grantQueueSlots', (c) => {
      checkQueueNames(queues, 'grantQueueSlots')
      for (const queue of new Set(queues)) {
        if (done.has(queue)) continue
        const pass = inTransaction(c, () => grantQueues(c.s, [queue], now))
        done.add(queue)
        grants.push(...deliveredGrants(pass.grants))
        throttled.push(...pass.throttled)
      }
      return { grants, throttled }
    })
  }

  queueStats(queues: readonly string[], now: number): Promise<QueueStats[]> {
    return this.call('queueStats', ({ s }) =>
      queueStats(s, checkQueueNames(queues, 'queueStats'), now),
    )
  }

  /** One transaction under SQLite's one writer (ops/queue_leases.ts). */
  leaseQueueSlots(request: QueueLeaseRequest, now: number): Promise<QueueLease> {
    return this.call('leaseQueueSlots', (c) => {
      checkQueueLease(request, now) // refused before anything is written
      return inTransaction(c, () => leaseQueue(c.s, request, now))
    })
  }

  requeueRun(request: RequeueRequest): Promise<RequeueResult> {
    return this.call('requeueRun', (c) => {
      checkRequeueRequest(request) // refused before anything is written
      return inTransaction(c, () => requeueRun(c.s, c.cache, request))
    })
  }

  getRun(runId: string): Promise<RunRecord | null> {
    return this.call('getRun', ({ s }) => {
      const row = s.selectRun.get(runId) as unknown as RunRow | undefined
      return row === undefined ? null : toRunRecord(row)
    })
  }

  loadCheckpoints(runId: string): Promise<CheckpointRecord[]> {
    return this.call('loadCheckpoints', ({ s }) =>
      (s.loadCheckpoints.all(runId) as unknown as CheckpointRow[]).map(toCheckpointRecord),
    )
  }

  async loadInbox(runId: string, afterSeq?: number): Promise<InboxMessage[]> {
    const after = checkInboxAfter(afterSeq)
    return this.call('loadInbox', ({ s }) =>
      (s.loadInbox.all(runId, after) as unknown as MessageRow[]).map(toInboxMessage),
    )
  }

  listRuns(query: ListRunsQuery): Promise<RunPage> {
    return this.call('listRuns', ({ cache }) => listRuns(cache, query))
  }

  facetRuns(query: RunFacetQuery): Promise<RunFacets> {
    return this.call('facetRuns', ({ cache }) => facetRuns(cache, query))
  }

  loadCheckpointPage(runId: string, page: CheckpointPage): Promise<CheckpointRecord[]> {
    return this.call('loadCheckpointPage', ({ s }) => {
      checkCheckpointPage(page)
      const rows = s.loadCheckpointPage.all(runId, page.fromSeq, page.limit)
      return (rows as unknown as CheckpointRow[]).map(toCheckpointRecord)
    })
  }

  /** The shared statement (../shared/backlog.ts): one read, counts over indexes. */
  backlog(now: number): Promise<RunBacklog> {
    return this.call('backlog', ({ cache }) => {
      checkBacklogTime(now)
      const statement = cache.get('backlog', () => backlogSql('cairn_runs', '?'), true)
      return toRunBacklog(statement.get(now) as unknown as unknown[] | undefined)
    })
  }

  appendEvent(
    event: EventRecord,
    prune: EventPruning,
    batches?: readonly EventBatchAdd[],
  ): Promise<EventAppend> {
    return this.call('appendEvent', (c) => {
      const adds = checkEventBatchAdds(batches, 'appendEvent') // refused before anything is written
      return inTransaction(c, () => appendEvent(c.s, event, prune, adds))
    })
  }

  /**
   * Most calls find nothing due: one read answers them, without taking the write lock. Else
   * one transaction (ops/event_batches.ts).
   */
  claimEventBatches(request: ClaimEventBatchesRequest): Promise<ClaimedEventBatches> {
    return this.call('claimEventBatches', (c) => {
      checkClaimEventBatches(request)
      const next = nextBatchAt(c.s, request.workflows)
      if (next === null || next > request.now) return { claimed: [], nextAt: next }
      return inTransaction(c, () => claimBatches(c.s, request))
    })
  }

  deleteEventBatch(workflow: string, key: string, id: string): Promise<boolean> {
    return this.call('deleteEventBatch', (c) => {
      checkEventBatchRef(workflow, key, id)
      return inTransaction(c, () => deleteBatch(c.s, workflow, key, id))
    })
  }

  putSchedule(put: SchedulePut): Promise<ScheduleRecord | null> {
    return this.call('putSchedule', (c) => {
      checkSchedulePut(put) // refused before anything is written
      return inTransaction(c, () => putSchedule(c.s, put))
    })
  }

  getSchedule(id: string): Promise<ScheduleRecord | null> {
    return this.call('getSchedule', ({ s }) => {
      checkScheduleId(id, 'getSchedule')
      return getSchedule(s, id)
    })
  }

  listSchedules(query: ScheduleListQuery): Promise<ScheduleRecord[]> {
    return this.call('listSchedules', ({ s }) => listSchedules(s, checkScheduleList(query)))
  }

  deleteSchedule(id: string): Promise<boolean> {
    return this.call('deleteSchedule', (c) => {
      checkScheduleId(id, 'deleteSchedule')
      return inTransaction(c, () => deleteSchedule(c.s, id))
    })
  }

  /**
   * Most calls find nothing due: one read answers them (the earliest next_at of the
   * claimer's workflows is later than now), without taking the write lock. Else one
   * transaction (ops/schedules.ts).
   */
  claimDueSchedules(request: ClaimSchedulesRequest): Promise<ClaimedSchedules> {
    return this.call('claimDueSchedules', (c) => {
      checkClaimSchedules(request)
      const next = nextScheduleAt(c.s, request.workflows)
      if (next === null || next > request.now) return { claimed: [], nextAt: next }
      return inTransaction(c, () => claimSchedules(c.s, request))
    })
  }

  advanceSchedule(advance: ScheduleAdvance): Promise<ScheduleAdvanceResult> {
    return this.call('advanceSchedule', (c) => {
      checkScheduleAdvance(advance)
      return inTransaction(c, () => advanceSchedule(c.s, advance))
    })
  }

  loadEvents(name: string, since: number): Promise<EventRecord[]> {
    return this.call('loadEvents', ({ s }) => loadEvents(s, name, since))
  }

  loadEventWaits(name: string): Promise<EventWaitRecord[]> {
    return this.call('loadEventWaits', ({ s }) => loadEventWaits(s, name))
  }

  removeEventWaits(waits: readonly EventWaitRef[]): Promise<number> {
    return this.#write('removeEventWaits', ({ s }) => removeEventWaits(s, waits))
  }

  loadSearchAttributes(runIds: readonly string[]): Promise<Map<string, SearchAttributes>> {
    return this.call('loadSearchAttributes', ({ s }) => loadSearchAttributes(s, runIds))
  }

  /** close() has been called. */
  protected get closing(): boolean {
    return this.#closing !== null
  }

  retentionCutoff(query: RetentionCutoffQuery): Promise<FinishedPosition | null> {
    return this.call('retentionCutoff', ({ cache }) =>
      retentionCutoff(cache, checkRetentionCutoff(query)),
    )
  }

  expiredRuns(query: ExpiredRunsQuery): Promise<FinishedPosition[]> {
    return this.call('expiredRuns', ({ cache }) => expiredRuns(cache, checkExpiredRuns(query)))
  }

  deleteRunTrees(request: DeleteRunTreesRequest): Promise<DeleteRunTreesResult> {
    return this.call('deleteRunTrees', (c) => {
      checkDeleteRunTrees(request) // refused before anything is deleted
      return inTransaction(c, () => deleteRunTrees(c.cache, request))
    })
  }

  appendStepLogs(appends: readonly StepLogAppend[], now: number): Promise<number> {
    return this.call('appendStepLogs', (c) => {
      checkStepLogAppends(appends) // refused before anything is written
      if (appends.length === 0) return 0
      return inTransaction(c, () => appendStepLogs(c.s, appends, now))
    })
  }

  /** One read: a range of the (run_key, seq) primary key. */
  loadStepLogs(runId: string, page: StepLogPage): Promise<StepLogRecord[]> {
    return this.call('loadStepLogs', ({ s }) => loadStepLogs(s, runId, checkStepLogPage(page)))
  }

  /** Gets the connection ready (schema migrated, statements prepared); open() calls it once. */
  protected abstract connect(): Promise<void>

  /** Lets go of the connection; close() calls it once calls in flight are done. */
  protected abstract disconnect(): Promise<void>

  /**
   * Runs the synchronous `body` on a prepared connection, waiting out other connections'
   * locks (SQLITE_BUSY) up to the store's bound; any failure becomes E_STORE_FAILURE naming
   * `operation`, and a closed store rejects.
   */
  protected abstract call<T>(operation: string, body: (c: PreparedConnection) => T): Promise<T>

  async #close(): Promise<void> {
    await this.#opening?.catch(() => undefined)
    await this.gate.drain()
    await this.disconnect()
  }

  /** One write transaction (BEGIN IMMEDIATE … COMMIT); nothing applied if it rejects. */
  #write<T>(operation: string, body: (c: PreparedConnection) => T): Promise<T> {
    return this.call(operation, (c) => inTransaction(c, () => body(c)))
  }
}

/** What a batch op must be to apply at all; a bad op rejects the whole batch. */
function checkOp(op: StoreOp): void {
  checkFinishOp(op)
  checkCreateOp(op)
  if (op.type === 'saveCheckpoint') {
    checkCheckpointQueue(op)
    checkCheckpointLogs(op)
  }
}

function inTransaction<T>(c: PreparedConnection, body: () => T): T {
  return inImmediateTransaction(c.db, c.s.tx, body)
}

export function closedError(operation: string): StoreFailureError {
  const state = 'the store is closed or was never opened'
  return new StoreFailureError(`sqlite store: ${operation} rejected: ${state}`, {
    details: { operation },
  })
}
