/**
 * StateStore over a SqlPool, a SqlDialect and the dialect's writers: the whole store, written
 * once. A dialect's store class supplies the parts (and extras such as Postgres wake-ups).
 *
 * Every call runs under a gate so close() waits for it, is retried whole after a failure that
 * applied nothing (withRetries), and fails as E_STORE_FAILURE naming the operation, with
 * `details.outcome = 'unknown'` when a lost connection left a write's outcome unknown.
 */
import type {
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
  CheckpointPage,
  RunFacetQuery,
  RunFacets,
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
  RequeueResult,
  RunBacklog,
  RunPage,
  RunRecord,
  ScheduleAdvance,
  ScheduleAdvanceResult,
  ScheduleListQuery,
  SchedulePut,
  ScheduleRecord,
  SearchAttributes,
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
import { checkInboxAfter } from '@cairn/core/store-kit'
import { applyBatch, type BatchContext } from './apply_batch.ts'
import { backlog } from './backlog.ts'
import { CallGate } from './call_gate.ts'
import { claimRuns, type ClaimWriter } from './claim_runs.ts'
import { appendEvent } from './event_append.ts'
import { claimEventBatches, type EventBatchClaimWriter } from './event_batch_claims.ts'
import { deleteEventBatch } from './event_batch_delete.ts'
import { loadEventWaits, loadEvents, removeEventWaits } from './event_log.ts'
import { closedStoreError, storeFailure } from './failures.ts'
import { listRuns } from './list_runs.ts'
import { loadSearchAttributes } from './load_attributes.ts'
import { parkUnrunnable, reclaimOwned, unpark } from './maintenance.ts'
import { migrate } from './migrate.ts'
import type { Migration } from './migration.ts'
import { facetRuns } from './facet_runs.ts'
import { getRun, loadCheckpointPage, loadCheckpoints, loadInbox } from './reads.ts'
import { requeueRun } from './requeue.ts'
import { promoteQueued } from './admission_sweep.ts'
import { admissionKeys } from './admission_keys.ts'
import { grantQueueSlots, queueStats } from './queue_calls.ts'
import { leaseQueueSlots } from './queue_leases.ts'
import { withRetries } from './retry.ts'
import { expiredRuns, retentionCutoff } from './retention_reads.ts'
import { deleteRunTrees } from './run_tree_delete.ts'
import { appendStepLogs, loadStepLogs } from './step_logs.ts'
import {
  advanceSchedule,
  claimDueSchedules,
  deleteSchedule,
  getSchedule,
  listSchedules,
  putSchedule,
  type ScheduleClaimWriter,
} from './schedules.ts'

export interface SqlStoreParts extends BatchContext {
  /** The store's `kind`, first word of its error messages. */
  kind: string
  claims: ClaimWriter
  /** How claimEventBatches takes due accumulators. */
  batchClaims: EventBatchClaimWriter
  /** How claimDueSchedules leases due schedules. */
  scheduleClaims: ScheduleClaimWriter
  migrations: readonly Migration[]
}

export class SqlStore implements StateStore {
  readonly kind: string
  protected readonly parts: SqlStoreParts
  readonly #gate = new CallGate()
  #opened = false
  #opening: Promise<void> | null = null
  #closing: Promise<void> | null = null

  constructor(parts: SqlStoreParts) {
    this.kind = parts.kind
    this.parts = parts
  }

  open(): Promise<void> {
    if (this.#closing) return Promise.reject(closedStoreError(this.kind, 'open'))
    this.#opening ??= this.#open().catch((error: unknown) => {
      this.#opening = null // a failed open may be retried
      throw error
    })
    return this.#opening
  }

  close(): Promise<void> {
    this.#closing ??= this.#close()
    return this.#closing
  }

  applyBatch(ops: readonly StoreOp[], now: number): Promise<OpResult[]> {
    return this.#call('applyBatch', true, () => applyBatch(this.parts, ops, now))
  }

  claimRuns(request: ClaimRequest): Promise<ClaimResult> {
    return this.#call('claimRuns', true, () => claimRuns(this.parts, this.parts.claims, request))
  }

  reclaimOwned(owner: string, now: number): Promise<number> {
    return this.#call('reclaimOwned', true, () => reclaimOwned(this.parts, owner, now))
  }

  parkUnrunnable(
    runnable: readonly WorkflowKey[],
    olderThan: number,
    reason: ParkReason,
    now: number,
  ): Promise<number> {
    return this.#call('parkUnrunnable', true, () =>
      parkUnrunnable(this.parts, runnable, olderThan, reason, now),
    )
  }

  unpark(keys: readonly WorkflowKey[], reasonCode: string, now: number): Promise<number> {
    return this.#call('unpark', true, () => unpark(this.parts, keys, reasonCode, now))
  }

  promoteQueued(keys: readonly AdmissionKey[], now: number): Promise<number> {
    return this.#call('promoteQueued', true, () => promoteQueued(this.parts, keys, now))
  }

  admissionKeys(query: AdmissionKeysQuery): Promise<AdmissionKeyPage> {
    return this.#call('admissionKeys', false, () => admissionKeys(this.parts, query))
  }

  grantQueueSlots(queues: readonly string[], now: number): Promise<QueueGrantReport> {
    return this.#call('grantQueueSlots', true, () => grantQueueSlots(this.parts, queues, now))
  }

  queueStats(queues: readonly string[], now: number): Promise<QueueStats[]> {
    return this.#call('queueStats', false, () => queueStats(this.parts, queues, now))
  }

  leaseQueueSlots(request: QueueLeaseRequest, now: number): Promise<QueueLease> {
    return this.#call('leaseQueueSlots', true, () => leaseQueueSlots(this.parts, request, now))
  }

  requeueRun(request: RequeueRequest): Promise<RequeueResult> {
    return this.#call('requeueRun', true, () => requeueRun(this.parts, request))
  }

  getRun(runId: string): Promise<RunRecord | null> {
    return this.#call('getRun', false, () => getRun(this.parts, runId))
  }

  loadCheckpoints(runId: string): Promise<CheckpointRecord[]> {
    return this.#call('loadCheckpoints', false, () => loadCheckpoints(this.parts, runId))
  }

  async loadInbox(runId: string, afterSeq?: number): Promise<InboxMessage[]> {
    const after = checkInboxAfter(afterSeq)
    return this.#call('loadInbox', false, () => loadInbox(this.parts, runId, after))
  }

  listRuns(query: ListRunsQuery): Promise<RunPage> {
    return this.#call('listRuns', false, () => listRuns(this.parts, query))
  }

  facetRuns(query: RunFacetQuery): Promise<RunFacets> {
    return this.#call('facetRuns', false, () => facetRuns(this.parts, query))
  }

  loadCheckpointPage(runId: string, page: CheckpointPage): Promise<CheckpointRecord[]> {
    return this.#call('loadCheckpointPage', false, () =>
      loadCheckpointPage(this.parts, runId, page),
    )
  }

  backlog(now: number): Promise<RunBacklog> {
    return this.#call('backlog', false, () => backlog(this.parts, now))
  }

  appendEvent(
    event: EventRecord,
    prune: EventPruning,
    batches?: readonly EventBatchAdd[],
  ): Promise<EventAppend> {
    return this.#call('appendEvent', true, () => appendEvent(this.parts, event, prune, batches))
  }

  claimEventBatches(request: ClaimEventBatchesRequest): Promise<ClaimedEventBatches> {
    return this.#call('claimEventBatches', true, () =>
      claimEventBatches(this.parts, this.parts.batchClaims, request),
    )
  }

  deleteEventBatch(workflow: string, key: string, id: string): Promise<boolean> {
    return this.#call('deleteEventBatch', true, () =>
      deleteEventBatch(this.parts, workflow, key, id),
    )
  }

  putSchedule(put: SchedulePut): Promise<ScheduleRecord | null> {
    return this.#call('putSchedule', true, () => putSchedule(this.parts, put))
  }

  getSchedule(id: string): Promise<ScheduleRecord | null> {
    return this.#call('getSchedule', false, () => getSchedule(this.parts, id))
  }

  listSchedules(query: ScheduleListQuery): Promise<ScheduleRecord[]> {
    return this.#call('listSchedules', false, () => listSchedules(this.parts, query))
  }

  deleteSchedule(id: string): Promise<boolean> {
    return this.#call('deleteSchedule', true, () => deleteSchedule(this.parts, id))
  }

  claimDueSchedules(request: ClaimSchedulesRequest): Promise<ClaimedSchedules> {
    return this.#call('claimDueSchedules', true, () =>
      claimDueSchedules(this.parts, this.parts.scheduleClaims, request),
    )
  }

  advanceSchedule(advance: ScheduleAdvance): Promise<ScheduleAdvanceResult> {
    return this.#call('advanceSchedule', true, () => advanceSchedule(this.parts, advance))
  }

  loadEvents(name: string, since: number): Promise<EventRecord[]> {
    return this.#call('loadEvents', false, () => loadEvents(this.parts, name, since))
  }

  loadEventWaits(name: string): Promise<EventWaitRecord[]> {
    return this.#call('loadEventWaits', false, () => loadEventWaits(this.parts, name))
  }

  removeEventWaits(waits: readonly EventWaitRef[]): Promise<number> {
    return this.#call('removeEventWaits', true, () => removeEventWaits(this.parts, waits))
  }

  loadSearchAttributes(runIds: readonly string[]): Promise<Map<string, SearchAttributes>> {
    return this.#call('loadSearchAttributes', false, () => loadSearchAttributes(this.parts, runIds))
  }

  retentionCutoff(query: RetentionCutoffQuery): Promise<FinishedPosition | null> {
    return this.#call('retentionCutoff', false, () => retentionCutoff(this.parts, query))
  }

  expiredRuns(query: ExpiredRunsQuery): Promise<FinishedPosition[]> {
    return this.#call('expiredRuns', false, () => expiredRuns(this.parts, query))
  }

  deleteRunTrees(request: DeleteRunTreesRequest): Promise<DeleteRunTreesResult> {
    return this.#call('deleteRunTrees', true, () => deleteRunTrees(this.parts, request))
  }

  appendStepLogs(appends: readonly StepLogAppend[], now: number): Promise<number> {
    return this.#call('appendStepLogs', true, () => appendStepLogs(this.parts, appends, now))
  }

  loadStepLogs(runId: string, page: StepLogPage): Promise<StepLogRecord[]> {
    return this.#call('loadStepLogs', false, () => loadStepLogs(this.parts, runId, page))
  }

  /** True between a successful open() and close(). */
  protected get isOpen(): boolean {
    return this.#opened && !this.#closing
  }

  /** Called by close() once calls in flight are done, before the pool is closed. */
  protected async beforeClose(): Promise<void> {}

  async #open(): Promise<void> {
    const { pool, kind } = this.parts
    try {
      await withRetries(pool, () => migrate(this.parts, this.parts.migrations))
    } catch (error) {
      throw storeFailure(pool, { store: kind, operation: 'open', writes: true }, error)
    }
    this.#opened = true
  }

  async #close(): Promise<void> {
    await this.#opening?.catch(() => undefined)
    await this.#gate.drain()
    this.#opened = false
    await this.beforeClose()
    await this.parts.pool.close()
  }

  async #call<T>(operation: string, writes: boolean, body: () => Promise<T>): Promise<T> {
    const { pool, kind } = this.parts
    if (this.#closing || !this.#opened) throw closedStoreError(kind, operation)
    this.#gate.enter()
    try {
      return await withRetries(pool, body)
    } catch (error) {
      throw storeFailure(pool, { store: kind, operation, writes }, error)
    } finally {
      this.#gate.leave()
    }
  }
}
