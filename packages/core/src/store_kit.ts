/**
 * @cairn/core/store-kit — for authors of stores and integrations, not of workflows.
 *
 * The checks every StateStore applies to its inputs (so each store refuses the same bad op
 * with the same error), the cursor encoding and claim result the contract fixes, the limits
 * the contract states, the search-attribute parsing a store's list query needs, and the
 * number checks integrations (the dashboard, the AdonisJS binding) use for their options.
 * `@cairn/conformance` proves a store against the contract; docs/stores.md explains it.
 */
export {
  checkFinishOp,
  checkCreateOp,
  checkTags,
  checkRequeueRequest,
  checkBacklogTime,
  claimResult,
  checkPriority,
  oldestShare,
  oldestSlots,
  inClaimOrder,
  MIN_PRIORITY,
  MAX_PRIORITY,
  DEFAULT_PRIORITY,
  OLDEST_SHARE,
  encodeCursor,
  decodeCursor,
  type CursorPosition,
  checkRunOrder,
  listStart,
  RUN_LIST_ORDERS,
  type ListStart,
  checkRunFilters,
  checkCheckpointPage,
  MAX_ID_CONTAINS_LENGTH,
  MAX_WORKFLOW_FACETS,
  MAX_CHECKPOINT_PAGE,
  type RunWindowFilters,
  CLAIMABLE_STATUSES,
  RUN_STATUSES,
  isRunStatus,
  isTerminalStatus,
  checkAdmission,
  checkAdmissionKey,
  queuedWaitingOn,
  checkPromoteKeys,
  MAX_PROMOTE_KEYS,
  MAX_ADMISSION_KEY_LENGTH,
  MAX_ADMISSION_COUNT,
  decideAdmission,
  ADMITTED_STATUSES,
  type AdmissionCounts,
  type AdmissionOutcome,
  checkQueueRequest,
  checkCheckpointQueue,
  checkQueueName,
  checkQueueNames,
  queueSlotMessage,
  queueGrantId,
  queueWaitingOn,
  MAX_QUEUE_NAME_LENGTH,
  MAX_QUEUE_CONCURRENCY,
  MAX_QUEUES_PER_CALL,
  nextWaiter,
  type QueueWaiter,
} from './store/index.ts'
export * from './search/index.ts'
export {
  checkInteger,
  checkTimeoutOrForever,
  NUMBER_RANGES,
  MAX_TIME_MS,
  MAX_TIMER_MS,
  type IntegerRange,
} from './util/numbers.ts'
