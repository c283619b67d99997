export { MemoryStore } from './memory/memory_store.ts'
export { checkFinishOp } from './finish_check.ts'
export { checkCreateOp, checkTags, MAX_TAGS, MAX_TAG_LENGTH } from './create_check.ts'
export { checkRequeueRequest } from './requeue_check.ts'
export { encodeCursor, decodeCursor, type CursorPosition } from './run_cursor.ts'
export { checkRunOrder, listStart, RUN_LIST_ORDERS, type ListStart } from './run_order.ts'
export {
  checkRunFilters,
  MAX_ID_CONTAINS_LENGTH,
  MAX_WORKFLOW_FACETS,
  type RunWindowFilters,
} from './run_filters.ts'
export { checkCheckpointPage, MAX_CHECKPOINT_PAGE } from './checkpoint_page.ts'
export { checkInboxAfter } from './inbox_after.ts'
export { checkBacklogTime } from './backlog_check.ts'
export { claimResult } from './claim_result.ts'
export {
  checkPriority,
  oldestShare,
  oldestSlots,
  inClaimOrder,
  MIN_PRIORITY,
  MAX_PRIORITY,
  DEFAULT_PRIORITY,
  OLDEST_SHARE,
} from './run_priority.ts'
export { CLAIMABLE_STATUSES, RUN_STATUSES, isRunStatus, isTerminalStatus } from './run_statuses.ts'
export {
  checkAdmission,
  checkAdmissionKey,
  queuedWaitingOn,
  checkPromoteKeys,
  MAX_PROMOTE_KEYS,
  MAX_ADMISSION_KEY_LENGTH,
  MAX_ADMISSION_COUNT,
} from './admission_check.ts'
export {
  checkAdmissionKeysQuery,
  encodeAdmissionCursor,
  decodeAdmissionCursor,
  DEFAULT_ADMISSION_KEYS_PAGE,
  MAX_ADMISSION_KEYS_PAGE,
  type AdmissionKeysStart,
} from './admission_keys_query.ts'
export {
  decideAdmission,
  ADMITTED_STATUSES,
  type AdmissionCounts,
  type AdmissionOutcome,
} from './admission_decision.ts'
export {
  checkQueueRequest,
  checkCheckpointQueue,
  checkQueueName,
  checkQueueNames,
  queueSlotMessage,
  QUEUE_SLOT_PREFIX,
  RUN_SLOT_SEQ,
  queueGrantId,
  queueWaitingOn,
  MAX_QUEUE_NAME_LENGTH,
  MAX_QUEUE_CONCURRENCY,
  MAX_QUEUES_PER_CALL,
} from './queue_check.ts'
export { nextWaiter, type QueueWaiter } from './queue_grants.ts'
export {
  checkQueueLease,
  leasedSlots,
  MAX_QUEUE_LEASE_MS,
  type LeaseCounts,
} from './queue_lease.ts'
export {
  checkRateLimit,
  rateLogRange,
  rateAllowance,
  prunableGrants,
  queueThrottled,
  MAX_RATE_LIMIT,
  MAX_RATE_PERIOD_MS,
} from './queue_rate.ts'
export {
  checkEventBatchAdds,
  checkClaimEventBatches,
  checkEventBatchRef,
  joinsAccumulator,
  afterAdd,
  MAX_EVENT_BATCH_SIZE,
  MAX_EVENT_BATCH_ADDS,
  MAX_EVENT_BATCH_CLAIM,
  type AccumulatorTimes,
} from './event_batch_rules.ts'
