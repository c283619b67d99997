/**
 * The in-memory StateStore: the reference implementation of the contract, used by unit tests
 * and the test harness. Not durable: everything is gone with the process. `close()` keeps
 * the data, so a harness can stop one engine and open the same store under another to play
 * a restart.
 *
 * Every method does its work synchronously, so each call is atomic with respect to every
 * other (two concurrent claims cannot interleave). It is also built to be fast: the engine
 * benchmark pushes its group commits through it.
 */
import type {
  QueueLease,
  QueueLeaseRequest,
  CheckpointPage,
  CheckpointRecord,
  ClaimRequest,
  EventPruning,
  EventAppend,
  EventBatchAdd,
  ClaimEventBatchesRequest,
  ClaimedEventBatches,
  ClaimedSchedules,
  ClaimSchedulesRequest,
  ScheduleAdvance,
  ScheduleAdvanceResult,
  ScheduleListQuery,
  SchedulePut,
  ScheduleRecord,
  EventRecord,
  EventWaitRecord,
  EventWaitRef,
  InboxMessage,
  ClaimResult,
  ListRunsQuery,
  OpResult,
  ParkReason,
  RunFacetQuery,
  RunFacets,
  RunBacklog,
  RunPage,
  RequeueRequest,
  AdmissionKey,
  AdmissionKeyPage,
  AdmissionKeysQuery,
  QueueGrantReport,
  QueueStats,
  RequeueResult,
  RunRecord,
  SearchAttributes,
  StepLogAppend,
  StepLogPage,
  StepLogRecord,
  StateStore,
  StoreOp,
  WorkflowKey,
  DeleteRunTreesRequest,
  DeleteRunTreesResult,
  ExpiredRunsQuery,
  FinishedPosition,
  RetentionCutoffQuery,
} from '../../contracts/index.ts'
import { applyBatch } from './apply_batch.ts'
import { checkInboxAfter } from '../inbox_after.ts'
import { backlog } from './backlog.ts'
import { claimRuns, reclaimOwned } from './claims.ts'
import { appendEvent, loadEventWaits, loadEvents, removeEventWaits } from './event_ops.ts'
import { checkClaimEventBatches, checkEventBatchRef } from '../event_batch_rules.ts'
import {
  checkClaimSchedules,
  checkScheduleAdvance,
  checkScheduleId,
  checkScheduleList,
  checkSchedulePut,
} from '../schedule_rules.ts'
import { parkUnrunnable, unpark } from './parking.ts'
import { facetRuns } from './facets.ts'
import {
  getRun,
  listRuns,
  loadCheckpointPage,
  loadCheckpoints,
  loadInbox,
  loadSearchAttributes,
} from './queries.ts'
import { requeueRun } from './requeue.ts'
import { promoteQueued } from './run_ops.ts'
import { checkPromoteKeys } from '../admission_check.ts'
import { checkAdmissionKeysQuery, encodeAdmissionCursor } from '../admission_keys_query.ts'
import { checkQueueNames } from '../queue_check.ts'
import { checkQueueLease } from '../queue_lease.ts'
import { StoreState } from './store_state.ts'
import { deleteRunTrees, expiredRuns, retentionCutoff } from './retention.ts'
import { appendStepLogs, loadStepLogs } from './step_logs.ts'
import { checkStepLogAppends, checkStepLogPage } from '../../step_logs/step_log_rules.ts'
import { checkDeleteRunTrees, checkExpiredRuns, checkRetentionCutoff } from '../retention_rules.ts'

export class MemoryStore implements StateStore {
  readonly kind = 'memory'
  readonly #state = new StoreState()

  async open(): Promise<void> {}

  async close(): Promise<void> {}

  async applyBatch(ops: readonly StoreOp[], now: number): Promise<OpResult[]> {
    return applyBatch(this.#state, ops, now)
  }

  async claimRuns(request: ClaimRequest): Promise<ClaimResult> {
    return claimRuns(this.#state, request)
  }

  async reclaimOwned(owner: string, now: number): Promise<number> {
    return reclaimOwned(this.#state, owner, now)
  }

  async parkUnrunnable(
    runnable: readonly WorkflowKey[],
    olderThan: number,
    reason: ParkReason,
    now: number,
  ): Promise<number> {
    return parkUnrunnable(this.#state, runnable, olderThan, reason, now)
  }

  async unpark(keys: readonly WorkflowKey[], reasonCode: string, now: number): Promise<number> {
    return unpark(this.#state, keys, reasonCode, now)
  }

  async requeueRun(request: RequeueRequest): Promise<RequeueResult> {
    return requeueRun(this.#state, request)
  }

  async promoteQueued(keys: readonly AdmissionKey[], now: number): Promise<number> {
    checkPromoteKeys(keys)
    let promoted = 0
    for (const { scope, key } of keys) promoted += promoteQueued(this.#state, scope, key, now)
    return promoted
  }

  async admissionKeys(query: AdmissionKeysQuery): Promise<AdmissionKeyPage> {
    const { keys, more } = this.#state.admissions.list(checkAdmissionKeysQuery(query))
    const last = keys[keys.length - 1]
    return { keys, nextCursor: more && last !== undefined ? encodeAdmissionCursor(last) : null }
  }

  async grantQueueSlots(queues: readonly string[], now: number): Promise<QueueGrantReport> {
    checkQueueNames(queues, 'grantQueueSlots')
    const made = this.#state.queues.grantQueues(this.#state, queues, now)
    return { grants: made.others, throttled: made.throttled }
  }

  async leaseQueueSlots(request: QueueLeaseRequest, now: number): Promise<QueueLease> {
    checkQueueLease(request, now)
    return this.#state.queues.lease(this.#state, request, now)
  }

  async queueStats(queues: readonly string[], now: number): Promise<QueueStats[]> {
    checkQueueNames(queues, 'queueStats')
    return this.#state.queues.stats(this.#state, queues, now)
  }

  async getRun(runId: string): Promise<RunRecord | null> {
    return getRun(this.#state, runId)
  }

  async loadCheckpoints(runId: string): Promise<CheckpointRecord[]> {
    return loadCheckpoints(this.#state, runId)
  }

  async loadInbox(runId: string, afterSeq?: number): Promise<InboxMessage[]> {
    return loadInbox(this.#state, runId, checkInboxAfter(afterSeq))
  }

  async listRuns(query: ListRunsQuery): Promise<RunPage> {
    return listRuns(this.#state, query)
  }

  async facetRuns(query: RunFacetQuery): Promise<RunFacets> {
    return facetRuns(this.#state, query)
  }

  async loadCheckpointPage(runId: string, page: CheckpointPage): Promise<CheckpointRecord[]> {
    return loadCheckpointPage(this.#state, runId, page)
  }

  async backlog(now: number): Promise<RunBacklog> {
    return backlog(this.#state, now)
  }

  async appendEvent(
    event: EventRecord,
    prune: EventPruning,
    batches?: readonly EventBatchAdd[],
  ): Promise<EventAppend> {
    return appendEvent(this.#state, event, prune, batches)
  }

  async claimEventBatches(request: ClaimEventBatchesRequest): Promise<ClaimedEventBatches> {
    return this.#state.eventBatches.claim(checkClaimEventBatches(request))
  }

  async deleteEventBatch(workflow: string, key: string, id: string): Promise<boolean> {
    checkEventBatchRef(workflow, key, id)
    return this.#state.eventBatches.delete(workflow, key, id)
  }

  async putSchedule(put: SchedulePut): Promise<ScheduleRecord | null> {
    return this.#state.schedules.put(checkSchedulePut(put))
  }

  async getSchedule(id: string): Promise<ScheduleRecord | null> {
    checkScheduleId(id, 'getSchedule')
    return this.#state.schedules.get(id)
  }

  async listSchedules(query: ScheduleListQuery): Promise<ScheduleRecord[]> {
    return this.#state.schedules.list(checkScheduleList(query))
  }

  async deleteSchedule(id: string): Promise<boolean> {
    checkScheduleId(id, 'deleteSchedule')
    return this.#state.schedules.delete(id)
  }

  async claimDueSchedules(request: ClaimSchedulesRequest): Promise<ClaimedSchedules> {
    return this.#state.schedules.claim(checkClaimSchedules(request))
  }

  async advanceSchedule(advance: ScheduleAdvance): Promise<ScheduleAdvanceResult> {
    return this.#state.schedules.advance(checkScheduleAdvance(advance))
  }

  async loadEvents(name: string, since: number): Promise<EventRecord[]> {
    return loadEvents(this.#state, name, since)
  }

  async loadEventWaits(name: string): Promise<EventWaitRecord[]> {
    return loadEventWaits(this.#state, name)
  }

  async removeEventWaits(waits: readonly EventWaitRef[]): Promise<number> {
    return removeEventWaits(this.#state, waits)
  }

  async loadSearchAttributes(runIds: readonly string[]): Promise<Map<string, SearchAttributes>> {
    return loadSearchAttributes(this.#state, runIds)
  }

  async appendStepLogs(appends: readonly StepLogAppend[], now: number): Promise<number> {
    return appendStepLogs(this.#state, checkStepLogAppends(appends), now)
  }

  async loadStepLogs(runId: string, page: StepLogPage): Promise<StepLogRecord[]> {
    return loadStepLogs(this.#state, runId, checkStepLogPage(page))
  }

  async retentionCutoff(query: RetentionCutoffQuery): Promise<FinishedPosition | null> {
    return retentionCutoff(this.#state, checkRetentionCutoff(query))
  }

  async expiredRuns(query: ExpiredRunsQuery): Promise<FinishedPosition[]> {
    return expiredRuns(this.#state, checkExpiredRuns(query))
  }

  async deleteRunTrees(request: DeleteRunTreesRequest): Promise<DeleteRunTreesResult> {
    return deleteRunTrees(this.#state, checkDeleteRunTrees(request))
  }
}
