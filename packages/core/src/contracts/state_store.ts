/**
 * The StateStore contract: everything the engine keeps durably goes through this interface.
 * Types only. Every store (memory, SQLite, Postgres, MySQL) runs `@cairn/conformance`.
 *
 * Ground rules for implementers:
 * - "Durable" means: when a returned promise resolves, the effect survives a `kill -9` of the
 *   process (and, under the store's documented durability setting, a power loss).
 * - Times are integer milliseconds passed in by the caller (`now`); the store compares them
 *   and never reads its own clock, so one engine clock governs leases and timers and tests can
 *   drive time. (A store with an authoritative server clock may document otherwise.)
 * - A method that rejects has changed nothing, except where it says "outcome unknown": the
 *   caller then re-reads or retries, and every write here is safe to retry.
 * - Fencing: every write made under a lease names the run and the lease epoch it holds
 *   (`Fence`). When the run's current epoch differs, or the run is no longer `running`, the
 *   write changes nothing and reports `fenced` (I3, P11).
 * - A write that changes a run sets its `updatedAt` to `now`; checkpoint writes leave the
 *   run row as it is.
 *
 * Messages: a run has an inbox (signals). `deliverMessage` accepts a message for a run that
 * is not terminal, numbered in acceptance order; a wait consumes one by recording its
 * checkpoint with `consumes` in the same transaction; `loadInbox` reads what is left.
 *
 * Broadcast events: an event log (`appendEvent`, `loadEvents`) and registered event waits
 * (written by `suspendRun.eventWaits`, read by `loadEventWaits`). Publisher and suspending
 * run each write first and read the other's table after their commit, so whichever commits
 * second sees the first; delivery is a `deliverMessage` with a dedupe id per (event, wait).
 *
 * Schedules (schedules.ts): `putSchedule`, `getSchedule`, `listSchedules`, `deleteSchedule`,
 * `claimDueSchedules`, `advanceSchedule`.
 *
 * Not in this contract (on purpose): retention arrives as a method group of its own.
 */
import type {
  ClaimEventBatchesRequest,
  ClaimedEventBatches,
  EventBatchAdd,
  EventBatchState,
} from './event_batches.ts'
import type {
  ClaimedSchedules,
  ClaimSchedulesRequest,
  ScheduleAdvance,
  ScheduleAdvanceResult,
  ScheduleListQuery,
  SchedulePut,
  ScheduleRecord,
} from './schedules.ts'
import type {
  SearchAttributeFilter,
  SearchAttributes,
  SearchAttributeUpsert,
} from './search_attributes.ts'
import type {
  CheckpointRecord,
  EventRecord,
  EventWaitRecord,
  InboxMessage,
  MessageKind,
  ParkReason,
  RunOrigin,
  RunRecord,
  RunStatus,
  TerminalStatus,
  WorkflowKey,
} from './records.ts'
import type { StepLogAppend, StepLogPage, StepLogRecord } from './step_logs.ts'
import type { TransactionalStepResult, TransactionalWork } from './transactions.ts'
import type {
  DeleteRunTreesRequest,
  DeleteRunTreesResult,
  ExpiredRunsQuery,
  FinishedPosition,
  RetentionCutoffQuery,
} from './retention.ts'

/** Names the lease a write is made under. */
export interface Fence {
  runId: string
  epoch: number
}

/** A run to create. */
export interface NewRun {
  id: string
  workflow: string
  version: string
  input: string
  /**
   * Creation time to record (`createdAt`, `updatedAt`, and `availableAt` of an unclaimed run),
   * read from the caller's clock. The engine needs to know it exactly: it is what `ctx.now()`
   * returns before the first step, on the first execution and on every replay.
   */
  createdAt: number
  /** For a child run: its parent and the parent's position awaiting it. Stored as given. */
  parent?: { runId: string; seq: number }
  /** The run this one continues (`ctx.continueAsNew`). Stored as given. */
  continuedFrom?: string
  /**
   * Labels (RunRecord.tags): at most 20, each 1..64 characters without control characters,
   * no duplicates; a store refuses others with E_INVALID_ARGUMENT (the batch applies nothing).
   * Absent or empty: no tags.
   */
  tags?: readonly string[]
  /** The run this one was made from (retry with edited input, fork). Stored as given. */
  origin?: RunOrigin
  /**
   * Claim priority (RunRecord.priority): an integer from -1000 to 1000, higher claimed first;
   * absent is 0. A store refuses others with E_INVALID_ARGUMENT (the batch applies nothing).
   */
  priority?: number
  /**
   * The named queue the run executes in (RunRecord.queue): a queue name (1..200 code points,
   * well formed, no NUL); absent is none. Stored as given — the store neither knows nor
   * checks that a queue of that name is registered (the engine parks a run whose queue it
   * lacks). A store refuses a malformed name with E_INVALID_ARGUMENT.
   */
  queue?: string
}

/** What `appendEvent` did. */
export interface EventAppend {
  /** The stored event's publish time: the first publish's, for a retry. */
  publishedAt: number
  /** False when an event with this id was there already (nothing changed). */
  appended: boolean
  /** Each add's accumulator after the append, in the order given ([] when not appended). */
  batches: EventBatchState[]
}

/**
 * Create a run unless one with the same id exists (I9).
 * With `claim`, the new run is created already leased (`running`, epoch 1, turns 1,
 * `availableAt = now + leaseMs`) by `claim.owner`: the starting engine runs it at once
 * without a second write.
 * Result: `applied` (with `epoch`: 1 if claimed, else 0) or `exists` (the stored run,
 * untouched, whatever its input: comparing inputs is the caller's business).
 */
export interface CreateRunOp {
  type: 'createRun'
  run: NewRun
  claim?: { owner: string; leaseMs: number }
  /**
   * Checkpoints the new run starts with (a fork copies its source's delivered outcomes):
   * inserted in the same transaction iff the run is created; an `exists` result writes
   * nothing. Each must name this run (`runId`), have status `completed` or `failed` and a
   * non-null `order`, with no two at one `seq` and no two with one `order`; positions need
   * not be dense (a fork leaves out the waits it did not copy). A store refuses others with
   * E_INVALID_ARGUMENT (the batch applies nothing). At most 10000.
   */
  seed?: readonly CheckpointRecord[]
  /**
   * Singleton admission (docs/flow-control.md): the run takes one of its key's `limit` slots,
   * or waits for one, or is refused — decided in the same transaction as the create, under a
   * lock on the key, only when the create applies (an `exists` result never takes a slot). A
   * key's admitted runs are its runs of status pending, running, waiting, blocked or parked,
   * counted from the runs themselves, never from a counter (so a slot is freed by the very
   * write that ends its run, whoever makes it). Outcomes:
   * - fewer than `limit` admitted: the run is created as without admission (`applied`);
   * - else `onFull: 'queue'` with fewer than `maxQueueDepth` queued (null: no bound): the run
   *   is created `queued` (not claimable, `availableAt` null, no claim: `applied` with
   *   `queued: true`, epoch 0), behind the key's earlier queued runs;
   * - else nothing is written for this op: `full`, with the counts found.
   * A queued run is promoted (→ `pending`, claimable at `now`) in start order, while the key
   * has fewer admitted runs than its limit: by a finish or cancel carrying the key
   * (FinishRunOp.admission, CancelRunOp.admission), and by any later admission on the key.
   * The newest writer's `limit` is the key's: a raised limit promotes at the next of those
   * writes, a lowered one admits nobody until the count is under it (it never evicts).
   */
  admission?: Admission
}

/** A singleton key: the runs admitted under it share its slots. */
export interface AdmissionKey {
  scope: string
  key: string
}

/** Which singleton keys `admissionKeys` lists, and where its page starts. */
export interface AdmissionKeysQuery {
  /** Only keys of this scope (exact; the engine's scope is the workflow name). 1..256 chars. */
  scope?: string
  /** 1..1000; default 50. */
  limit?: number
  /** Opaque cursor from a previous page's `nextCursor`: the page continues after its last key. */
  cursor?: string
}

/** One singleton key as `admissionKeys` sees it: its limit and its open runs, counted. */
export interface AdmissionKeyStats {
  /** The key's scope (the engine's: the workflow name). */
  scope: string
  /** The key itself. */
  key: string
  /** The key's limit as stored: the newest writer's (CreateRunOp.admission). */
  limit: number
  /** Runs holding one of its slots: pending, running, waiting, blocked or parked. */
  admitted: number
  /** Runs of status `queued` waiting for a slot. */
  queued: number
  /**
   * `createdAt` of the key's first queued run (the next to be promoted, the longest in the
   * queue; time in the queue counts from creation, as the execution timeout does); null when
   * none is queued.
   */
  oldestQueuedSince: number | null
}

/** A page of `admissionKeys`. */
export interface AdmissionKeyPage {
  /** In (scope, key) order, each compared by code point (= UTF-8 bytes). */
  keys: AdmissionKeyStats[]
  /** Pass back as `cursor` to get the next page; null on the last page. */
  nextCursor: string | null
}

/** The singleton key a run is admitted under (CreateRunOp.admission). */
export interface Admission {
  /** Slots are counted per (scope, key); the engine's scope is the workflow's name. 1..256 chars. */
  scope: string
  /** 1..256 characters. */
  key: string
  /** Runs of the key admitted at once: an integer >= 1. */
  limit: number
  /** Over the limit: create the run `queued`, or write nothing (`full`). */
  onFull: 'reject' | 'queue'
  /** `queue` only: at most this many queued runs per key (an integer >= 0), or null. */
  maxQueueDepth: number | null
  /**
   * The run takes over the slot of this run (`ctx.continueAsNew`: the predecessor is finished
   * `continued` by a later op of the same batch): admitted without counting when that run is
   * not terminal and holds this key (queued or admitted); otherwise admitted like any create.
   */
  inheritFrom?: string
}

/**
 * Insert or advance the checkpoint at (runId, seq), fenced (`checkpoint.runId` is `fence.runId`).
 * Besides the lease holder's, a `cancelled` run at `fence.epoch` accepts it too: the late
 * outcome of a step that was in flight when the run was cancelled, recorded for the timeline
 * (the cancel moved the epoch; the cancelled turn writes under the one it left). Nothing else
 * changes for such a run: it stays cancelled.
 * - No row yet, or a `retrying`/`waiting` row: the row becomes `checkpoint` → `applied`
 *   (every field, `input` included: a `retrying` row moving to `completed` carries the input
 *   the save names, which for a registered step is the one it had).
 * - A `completed`/`failed` row already there: nothing changes → `conflict` with the stored
 *   row (the recorded result wins, I1; a retried write of the same row lands here too).
 * A save of kind `event` that applies with status `completed` or `failed` also removes the
 * event wait registered at (runId, seq), in the same transaction: that wait is over.
 */
export interface SaveCheckpointOp {
  type: 'saveCheckpoint'
  fence: Fence
  checkpoint: CheckpointRecord
  /**
   * Inbox seq of the message this checkpoint consumes (a signal wait that received it). When
   * the checkpoint applies, that message is marked consumed in the same transaction, so it
   * is delivered to exactly one wait, once. Ignored when the op does not apply.
   */
  consumes?: number
  /**
   * Search attributes this checkpoint records (`ctx.upsertSearchAttributes`). When the
   * checkpoint applies, each value is stored for the run (replacing the attribute of that
   * name, whatever its type) and each null removes the attribute, in the same transaction:
   * a replayed save (`conflict`) or a fenced one writes nothing, so attributes never exist
   * without their checkpoint and are never written twice. Ignored when the op does not apply.
   * Names and values follow search/attribute_values.ts (the engine checks them at the call);
   * a store refuses an op breaking them with E_INVALID_ARGUMENT, applying nothing.
   */
  searchAttributes?: SearchAttributeUpsert
  /**
   * Ask a named queue for a slot for this position's next attempt (docs/flow-control.md
   * "Queues"); only with a `waiting` checkpoint. When the checkpoint applies, in the same
   * transaction and under the queue's lock: the queue's concurrency becomes `concurrency` (the
   * newest writer's, as an admission key's limit); the position's item (runId, seq) is stored
   * for `attempt` at the back of the queue (an item already there for that attempt is kept
   * where it is: a replayed save; one for another attempt is replaced); then the queue grants
   * (the rule of grantQueueSlots). A grant of another item delivers to its run the message
   * named queueSlotMessage(seq) with dedupe id queueGrantId(seq, attempt) by the
   * deliverMessage rules (it wakes a run waiting on it); the enqueuing item's own grant is
   * told by the result (`granted`), with no message. Ignored when the op does not apply.
   */
  enqueue?: QueueRequest
  /**
   * The queue whose slot this position's attempt held (or waited for): the checkpoint records
   * its outcome (`completed`, `failed`, `retrying`). When the checkpoint applies, in the same
   * transaction: the item (runId, seq) is deleted from that queue, the run's unconsumed grant
   * messages for this position are consumed, and the queue grants its next waiters. No item
   * there: only the grant pass runs. Ignored when the op does not apply.
   */
  release?: string
  /**
   * Lines and progress the step logged (contracts/step_logs.ts), for this op's position
   * (`runId` and `seq` as the checkpoint's). When the checkpoint applies they are merged into
   * the position's log record in the same transaction, by the appendStepLogs rules.
   * Ignored when the op does not apply. Malformed (step_logs/step_log_rules.ts): the store
   * refuses the batch with E_INVALID_ARGUMENT, applying nothing.
   */
  logs?: StepLogAppend
}

/**
 * A step attempt asking a queue for a slot (SaveCheckpointOp.enqueue). A queue's slots are
 * shared by every engine and worker on the store: its granted items whose run is pending,
 * running, waiting or blocked hold them — counted from the items and the runs, never from a
 * counter, so any write ending or parking a run frees its slots (FinishRunOp.releaseQueues and
 * cancelRun also grant the next waiters at once; otherwise the queue's next write or
 * grantQueueSlots does). A parked run holds nothing and is granted nothing; `unpark` drops
 * its items and consumes its grant messages, so its replay asks again (so does requeueRun).
 */
export interface QueueRequest {
  /** The queue's name: 1..MAX_QUEUE_NAME_LENGTH characters, no NUL or lone surrogate. */
  queue: string
  /** Slots of the queue: an integer from 1 to MAX_QUEUE_CONCURRENCY. */
  concurrency: number
  /** The attempt the slot is for: an integer >= 1. */
  attempt: number
  /** Higher first within the queue: an integer from MIN_PRIORITY to MAX_PRIORITY. */
  priority: number
  /**
   * Waiters of one priority are granted key by key, the key granted least recently first, so
   * a key with many waiters does not starve one with few. '' is a key like any other (the
   * default). At most MAX_QUEUE_NAME_LENGTH characters, no NUL or lone surrogate.
   */
  fairnessKey: string
  /**
   * The queue's rate (the newest writer's, as `concurrency`), or null for none: grants of the
   * queue are limited by it as well as by its slots (QueueRateLimit).
   */
  rateLimit: QueueRateLimit | null
}

/**
 * A queue's rate: at most `limit` grants in any interval of `periodMs` (half-open: grants at
 * t and t + periodMs fall in different intervals), measured by the `now` of the writes that
 * grant. Kept as a log of the queue's grant times (the grant numbered g is allowed when the
 * one numbered g − limit is at least `periodMs` old), so it is exact in every interval, not a
 * bucket's average. A grant the log does not hold (pruned, or made while the queue had no
 * rate) counts as made when the oldest grant it holds was; with an empty log it does not count
 * (store-kit rateAllowance). A pass stopped by the rate (waiters beside a free
 * slot) reports when the next grant is possible (QueueThrottle); nothing grants then unless
 * asked (grantQueueSlots): the engine that learns of it sets a timer.
 */
export interface QueueRateLimit {
  /** Grants per interval: an integer from 1 to MAX_RATE_LIMIT. */
  limit: number
  /** The interval: an integer from 1 to MAX_RATE_PERIOD_MS milliseconds. */
  periodMs: number
}

/** A queue whose grant pass its rate stopped: waiters beside a free slot until `retryAt`. */
export interface QueueThrottle {
  queue: string
  /** The earliest `now` at which the queue's next grant is possible. */
  retryAt: number
}

/** StateStore.leaseQueueSlots' request. */
export interface QueueLeaseRequest {
  /** The queue's name (as QueueRequest.queue). */
  queue: string
  /** The holder: 1..255 UTF-16 code units, no NUL or lone surrogate (an engine's instanceId). */
  owner: string
  /** Slots to hold after the call: an integer from 0 (give every slot back) to MAX_QUEUE_CONCURRENCY. */
  want: number
  /**
   * Slots of the owner's lease its attempts may hold until the answer arrives (an integer from
   * 0 to MAX_QUEUE_CONCURRENCY): the lease keeps at least this many of its unexpired slots.
   */
  inUse: number
  /** The queue's concurrency, as the holder's engine registered it (as QueueRequest.concurrency). */
  concurrency: number
  /** The lease lasts until `now + leaseMs`: an integer from 1 to 2,147,483,647. */
  leaseMs: number
}

/** What StateStore.leaseQueueSlots left the owner with. */
export interface QueueLease {
  /** Slots the owner holds now (0..max(want, inUse)). */
  held: number
  /** `now + leaseMs`: the lease holds nothing from this time on unless renewed. */
  expiresAt: number
  /** Items waiting for a grant (as QueueStats.waiting): a holder gives its slots back while any. */
  waiting: number
}

/** What grantQueueSlots did. */
export interface QueueGrantReport {
  /** The grants made, each as its message was delivered (as OpResult.grants). */
  grants: readonly SlotGrant[]
  /** The queues whose rate left waiters beside free slots, one entry each. */
  throttled: readonly QueueThrottle[]
}

/** A grant of a queue slot, as delivered (OpResult.grants). */
export interface SlotGrant {
  runId: string
  /** The position whose item was granted. */
  seq: number
  /** The attempt the grant is for. */
  attempt: number
  /** The inbox seq of the grant message. */
  inboxSeq: number
}

/** One queue as grantQueueSlots and queueStats see it. */
export interface QueueStats {
  queue: string
  /** The newest writer's concurrency. */
  concurrency: number
  /** Granted items of runs that are not terminal: the slots in use. */
  granted: number
  /** Items waiting for a grant whose run is pending, running, waiting or blocked. */
  waiting: number
  /** The `now` of the oldest waiting item's enqueue, or null. */
  oldestWaitingSince: number | null
  /** The newest writer's rate, or null. */
  rateLimit: QueueRateLimit | null
  /** Grants logged in the `periodMs` before `now` (0 without a rate). */
  recentGrants: number
  /** Slots held by unexpired slot leases (StateStore.leaseQueueSlots), in use or not. */
  leased: number
  /**
   * Waiters the free slots would take now but the rate holds back (0 without a rate):
   * min(waiting, concurrency − granted − leased) minus the grants the rate allows now
   * (queueThrottled).
   */
  throttled: number
}

/**
 * Suspend a running run: status `waiting` (`blocked` with `blocked: true`), lease released, `waitingOn` set for operators.
 * `availableAt = wakeAt` (null: no timer; a message must wake it) — except when the run's
 * `inboxSeq` is above `inboxSeen` (a message arrived after the turn read the inbox): then
 * `availableAt = now`, so the run is claimable at once. One conditional write: a message
 * accepted concurrently is either seen here or wakes the waiting run itself. Fenced.
 * `recoveries` is set to 0 (the run moved on: RunRecord.recoveries).
 * Result: `applied` with the `availableAt` it stored (so the engine knows when to look again).
 */
export interface SuspendRunOp {
  type: 'suspendRun'
  fence: Fence
  wakeAt: number | null
  waitingOn: string
  /** The highest inbox seq the turn has read (0: none). */
  inboxSeen: number
  /**
   * The message names that can end one of the run's open waits (a signal's name, a child's
   * result, a cancel…). While the run waits, a delivery of another name is stored and counted
   * but does not make the run claimable: it would only replay the run to find nothing to do,
   * a cost that grows with the inbox. Absent or null: every message wakes the run. Kept with
   * the run for the lease epoch of this suspend: names written in an earlier epoch count as
   * null (a writer of an earlier version suspending without them, during a rolling upgrade,
   * must not leave the run behind names it does not wait for). The inboxSeen rule above is not
   * filtered by it.
   */
  wakeOn?: readonly string[] | null
  /**
   * Event waits to register (`ctx.waitForEvent`), written in the same transaction iff the
   * suspend applies; a wait already registered at (runId, seq) is kept as it is. Absent or
   * empty: no event wait, and nothing more is written.
   */
  eventWaits?: readonly EventWaitToRegister[]
  /**
   * The turn found a remote step no live worker can serve (`waitingOn` names what is missing):
   * the run reads `blocked` instead of `waiting` until its next claim. Nothing else differs —
   * the same `availableAt`, wake rules, claims and fences as a waiting run (a blocked run's
   * checks look again, and the step's result wakes it like any message). Absent or false:
   * `waiting`. Stores may keep a blocked run as `waiting` with a mark valid for this suspend's
   * lease epoch only (SQL stores do), so a writer of an earlier version suspending without
   * this field, during a rolling upgrade, leaves the run `waiting`, never stale `blocked`.
   */
  blocked?: boolean
}

/** An event wait of the suspending run (`fence.runId`): see EventWaitRecord. */
export type EventWaitToRegister = Omit<EventWaitRecord, 'runId'>

/**
 * Accept a message into a run's inbox. The run must exist. A `dedupeId` this run already
 * accepted reports that first acceptance (`duplicate: true`), even once the run has finished;
 * otherwise a terminal run refuses (`terminal`). Retry after an "outcome unknown" failure is
 * safe only with a `dedupeId` (without one, a retry may store the message twice: callers that
 * may retry must give one). Accepting: the run's `inboxSeq` is incremented, the message
 * stored under it, and a `waiting` or `blocked` run becomes claimable now (`availableAt = min(availableAt,
 * now)`) when its last suspend's `wakeOn` is null or names the message; a pending, running or
 * parked run keeps its `availableAt` (a running one sees the message at its next suspend, a
 * parked one when unparked). O(1) in the size of the run's inbox. Not fenced: callers send it.
 * Results: `delivered` (with `seq`, `duplicate`), `terminal`, `not_found`.
 */
export interface DeliverMessageOp {
  type: 'deliverMessage'
  message: MessageToDeliver
}

/**
 * A message for a run's inbox. Attached to finishRun / cancelRun as `notify`, it is accepted by
 * the deliverMessage rules (dedupe, wake) when that op applies; a target run that is unknown or
 * terminal is skipped silently there (its op still applies).
 */
export interface MessageToDeliver {
  runId: string
  kind: MessageKind
  name: string
  dedupeId: string | null
  payload: string
}

/**
 * Hand a running run back: status `pending`, lease released, claimable at `availableAt`,
 * `recoveries` 0 (its holder let it go: the next claim is no takeover). Fenced.
 */
export interface ReleaseRunOp {
  type: 'releaseRun'
  fence: Fence
  availableAt: number
}

/**
 * Move a running run to a terminal status with its output or error; `availableAt` null,
 * `finishedAt = now`. Fenced. Terminal is absorbing: a second finish reports `fenced`.
 * Status `continued` records `continuedTo` (the successor's id); the successor itself is
 * created by a createRun op placed before this one in the same batch (see ctx.continueAsNew:
 * a successor whose predecessor did not end `continued` to it refuses to run).
 */
export interface FinishRunOp {
  type: 'finishRun'
  fence: Fence
  status: TerminalStatus
  output: string | null
  error: string | null
  /** Status `continued` only: the successor's run id. */
  continuedTo?: string
  /** A message to deliver in the same transaction iff this op applies (a child telling its parent). */
  notify?: MessageToDeliver
  /**
   * Remove every event wait registered for the run, in the same transaction iff this op
   * applies (the run ended while an event wait was still open). Absent: nothing more written.
   */
  clearEventWaits?: boolean
  /**
   * The run's admission key as its record says (RunRecord.admission): when this op applies,
   * the key's queued runs are promoted into the slot it frees, before applyBatch returns — in
   * the same transaction (memory, SQLite), or right after its commit under the key's lock
   * (Postgres, MySQL: an end only lowers a count, so it is written without that lock; a
   * process dying in between leaves the waiters to promoteQueued's sweep). Absent:
   * the slot is still freed (admission counts runs), but waiters are promoted only by the
   * key's next write. For status `continued` the successor took the slot over (its create
   * inherits it), so this usually promotes nobody; it does when both were counted (a
   * successor created by a stale holder while the run was still live).
   */
  admission?: { scope: string; key: string }
  /**
   * Queues in which the run has items (its open queued steps): when this op applies, the
   * run's items there are deleted and each queue grants its next waiters, in the same
   * transaction. Absent: the items stay until a grant pass of their queue finds their run
   * ended (they hold no slot meanwhile: a terminal run's items never count).
   */
  releaseQueues?: readonly string[]
}

/** Park a running run with a reason: status `parked`, `availableAt` null, lease released. Fenced. */
export interface ParkRunOp {
  type: 'parkRun'
  fence: Fence
  reason: ParkReason
}

/** Extend a held lease: `availableAt = now + leaseMs`. Fenced (a lost lease reports `fenced`). */
export interface RenewLeaseOp {
  type: 'renewLease'
  fence: Fence
  leaseMs: number
  /**
   * The holder recorded a step outcome (a `completed` or `failed` checkpoint) since its last
   * renewal: the run moved on, so its `recoveries` is set to 0 in the same write. Absent or
   * false: `recoveries` is left as it is.
   */
  progressed?: boolean
}

/**
 * Cancel a run that is not terminal (parked and queued included): status `cancelled`, `error`
 * recorded, `availableAt` null, `finishedAt = now`, and the epoch incremented so the current
 * lease holder's later writes are fenced. A run holding an admission slot frees it (see
 * `admission` below for the promotion of its key's waiters).
 * Results: `applied`, `terminal` (already terminal; nothing changes), `not_found`.
 */
export interface CancelRunOp {
  type: 'cancelRun'
  runId: string
  error: string
  /**
   * The run's admission key as the caller read it (RunRecord.admission): when this op applies,
   * the key's queued runs are promoted into the slot it frees (or simply move up, for a queued
   * run), before applyBatch returns (as for FinishRunOp.admission). Absent: the slot is still
   * freed and waiters are promoted by
   * the key's next write; a store that finds the key itself may promote anyway.
   */
  admission?: { scope: string; key: string }
  /** A message to deliver in the same transaction iff this op applies (a child telling its parent). */
  notify?: MessageToDeliver
  // A cancel that applies also deletes every queue item of the run and lets each of those
  // queues grant its next waiters, in the same transaction (the store finds them itself).
}

export type StoreOp =
  | CreateRunOp
  | SaveCheckpointOp
  | SuspendRunOp
  | ReleaseRunOp
  | FinishRunOp
  | ParkRunOp
  | RenewLeaseOp
  | CancelRunOp
  | DeliverMessageOp

/** The state a fenced op found, so the caller knows why (null: the run does not exist). */
export interface FenceState {
  status: RunStatus
  epoch: number
}

export type OpResult =
  | {
      status: 'applied'
      epoch?: number
      availableAt?: number | null
      /** createRun: the run was created `queued` (CreateRunOp.admission). */
      queued?: boolean
      /**
       * The write made other runs claimable now (the caller may look for work at once):
       * finishRun / cancelRun naming an admission key promoted queued runs into the slot it
       * freed; or a queue grant made by this op (saveCheckpoint with `enqueue` or `release`,
       * finishRun with `releaseQueues`, cancelRun) woke a run waiting for it. Absent: none.
       */
      promoted?: boolean
      /**
       * saveCheckpoint with `enqueue`: the position's item holds a slot after this op —
       * granted by it (then no grant message is delivered: this result is the grant) or
       * before it (a replayed save; its message, if one was delivered, is in the inbox).
       * Absent: it waits in line; its grant will come as a message.
       */
      granted?: true
      /**
       * The grants this op made to other runs' items (a release, an end, a cancel or an
       * enqueue that let a queue grant its waiters), each as its grant message was delivered:
       * an engine holding such a run in memory hands it the grant at once. Absent: none.
       */
      grants?: readonly SlotGrant[]
      /**
       * The queues whose grant pass in this op its rate stopped (QueueRateLimit): waiters
       * beside free slots, grantable at `retryAt`. Absent: none.
       */
      throttled?: readonly QueueThrottle[]
    }
  | { status: 'full'; key: string; admitted: number; queued: number }
  | { status: 'fenced'; current: FenceState | null }
  | { status: 'conflict'; existing: CheckpointRecord }
  | { status: 'exists'; run: RunRecord }
  | { status: 'terminal'; current: FenceState }
  | { status: 'not_found' }
  | { status: 'delivered'; seq: number; duplicate: boolean }

/**
 * A failed run to requeue (`engine.requeue`): which run, the epoch it was read at, and the
 * positions to run again. The engine decides the positions (engine/requeue_plan.ts); the
 * store applies them as given.
 */
export interface RequeueRequest {
  runId: string
  /** The run's `leaseEpoch` when the caller read it `failed`: it must still be failed at it. */
  epoch: number
  /**
   * Positions whose `failed` checkpoint is removed, so the replay runs them again (integers
   * >= 0, at most 1000, no duplicates). A position holding a checkpoint of another status,
   * or none, is left as it is and not counted.
   */
  resetSeqs: readonly number[]
  now: number
}

/**
 * - `applied`: the run is `pending` at `epoch` (the new one); `positionsReset` checkpoints
 *   were removed.
 * - `refused`: the run is not `failed` at the requested epoch (`current` says what it is: a
 *   concurrent requeue left it `pending`, or it was requeued and failed again at a later
 *   epoch); nothing changed.
 * - `not_found`: no run has this id.
 */
export type RequeueResult =
  | {
      status: 'applied'
      epoch: number
      positionsReset: number
      /**
       * The run holds a singleton key whose slots are taken (or with runs queued before it): it
       * is `queued` at the back of the key's queue, not `pending`. Absent: pending.
       */
      queued?: boolean
    }
  | { status: 'refused'; current: FenceState }
  | { status: 'not_found' }

export interface ClaimRequest {
  /** Instance id of the claiming engine; becomes `leaseOwner`. */
  owner: string
  now: number
  leaseMs: number
  /** At most this many runs. */
  limit: number
  /** Only runs of these workflow versions are claimed; others are left untouched. */
  runnable: readonly WorkflowKey[]
  /**
   * How many of the `limit` slots go to the claimable runs due longest (least `availableAt`),
   * whatever their priority; the rest go by priority, highest first, and within a priority
   * to the run due longest. An integer from 0 to `limit`; absent is 0. The engine asks for
   * one slot in eight this way, so a run of low priority is never starved by a stream of
   * higher ones (docs/flow-control.md "Run priority").
   */
  oldest?: number
}

export interface ClaimResult {
  /** The claimed runs, as stored after the claim (status `running`, new epoch). */
  claimed: RunRecord[]
  /**
   * Earliest `availableAt` among the runnable runs this call did not claim (pending, waiting
   * or running: for a running run, its lease expiry), or null when there is none: when to
   * poll next.
   */
  nextAvailableAt: number | null
  /**
   * The claimed runs that were `running` before this claim — a lease that expired (its engine
   * died or stalled), or one an engine handed back with reclaimOwned — each with the instance
   * that held it, in `claimed` order. Absent when there is none (the common case).
   */
  recovered?: RecoveredLease[]
}

/** A claimed run taken over from a lease holder (ClaimResult.recovered). */
export interface RecoveredLease {
  runId: string
  /** `leaseOwner` before the claim. */
  previousOwner: string
}

export interface ListRunsQuery {
  workflow?: string
  /** Only the children of this run (`parentRunId`). */
  parentRunId?: string
  status?: RunStatus | readonly RunStatus[]
  /** 1..1000; default 50. */
  limit?: number
  /**
   * Opaque cursor from a previous page's `nextCursor`: the position (createdAt, id) of that
   * page's last run, and the `order` of the query that made it. The next page continues in
   * that order; a cursor passed with the other order is refused with E_INVALID_CURSOR (to
   * turn around, start again without a cursor).
   */
  cursor?: string
  /**
   * `newest` (default): createdAt descending, ties by id descending. `oldest`: createdAt
   * ascending, ties by id ascending, exactly the reverse. Anything else: E_INVALID_ARGUMENT.
   */
  order?: RunListOrder
  /**
   * Only runs whose search attributes match every entry (see SearchAttributeFilter for the
   * operators, type matching and `ne` on a missing attribute). Combines with the filters
   * above and with `cursor`. At most 16 conditions; E_INVALID_ARGUMENT for a malformed one.
   */
  searchAttributes?: SearchAttributeFilter
  /** Only runs of this workflow version (exact match; alone or with `workflow`). */
  version?: string
  /** Only runs created at or after this time (safe integer ms, inclusive). */
  createdFrom?: number
  /** Only runs created before this time (safe integer ms, exclusive). */
  createdBefore?: number
  /**
   * Only runs claimable before this time (engine clock, safe integer ms, exclusive): open runs
   * (pending, running, waiting, blocked) an engine could have claimed by then, RunInfo.claimableAt.
   * Parked and finished runs have no claimableAt and never match. With `now - staleAfter` it
   * lists stuck runs: pending ones nobody picked up, due timers nobody fired, expired leases.
   */
  claimableBefore?: number
  /**
   * Only runs whose id contains this text: a literal, case-sensitive substring (no wildcards:
   * `%` and `_` match themselves). 1..255 characters (string length, as run ids are
   * measured); E_INVALID_ARGUMENT otherwise. Not served by an index: checked on the rows the
   * other filters reach.
   */
  idContains?: string
  /** Only runs carrying this tag (RunRecord.tags). Combines with the others and with `cursor`. */
  tag?: string
  /** Only runs made from this run (`origin.runId`: its retries with edited input and forks). */
  originRunId?: string
  /**
   * Only runs holding a slot of this singleton key or queued under it (RunRecord.admission,
   * status pending, running, waiting, blocked, parked or queued): the key's open runs, which
   * `admissionKeys` counts. Ended runs of the key never match. Combines with the others and
   * with `cursor`; a scope or key that is no valid one (1..256 characters, no NUL) is
   * E_INVALID_ARGUMENT. SQL stores read the key's range of the admission index.
   */
  admissionKey?: AdmissionKey
}

/** The order of a run list (ListRunsQuery.order). */
export type RunListOrder = 'newest' | 'oldest'

/** The filters of a facet count: a ListRunsQuery without paging or order. */
export type RunFacetQuery = Omit<ListRunsQuery, 'limit' | 'cursor' | 'order'>

export interface RunFacets {
  /** Runs matching the query with its `status` filter ignored, per status (absent: 0). */
  byStatus: Partial<Record<RunStatus, number>>
  /** Runs matching the query with its `workflow` filter ignored, per workflow, most first, at most 100. */
  byWorkflow: Array<{ workflow: string; count: number }>
}

/** A page of a run's checkpoints: positions `seq >= fromSeq`, at most `limit` (1..1000). */
export interface CheckpointPage {
  fromSeq: number
  limit: number
}

export interface RunPage {
  /** Newest first (createdAt desc, then id desc, ids compared by code point = UTF-8 bytes). */
  runs: RunRecord[]
  /** Pass back to get the next page; null on the last page. */
  nextCursor: string | null
}

/** How much work waits for an engine (`backlog(now)`), for metrics and operators. */
export interface RunBacklog {
  /** Runs with status `pending` (created or requeued, not yet claimed). */
  pending: number
  /** Runs with status `waiting` (suspended on a timer, signal, child, event, …). */
  waiting: number
  /** Runs with status `blocked` (a remote step no live worker can serve); not in `waiting`. */
  blocked: number
  /** Runs with status `queued` (waiting for a slot of their singleton key; not claimable). */
  queued: number
  /** Waiting and blocked runs whose `availableAt <= now`: timers due and not yet picked up. */
  dueTimers: number
  /** The smallest `availableAt` over pending runs (the longest wait for a first claim), or null. */
  oldestPendingAt: number | null
}

/** Where an event log is pruned as a publish appends: at most `limit` events older than `before`. */
export interface EventPruning {
  before: number
  limit: number
}

/** The place of one registered event wait. */
export interface EventWaitRef {
  runId: string
  seq: number
}

export interface StateStore {
  /** Short name for logs and benchmarks (`memory`, `sqlite`, …). */
  readonly kind: string

  /**
   * Prepare the store (schema migrations). Idempotent; safe when several processes open the
   * same database at once. Must be called before any other method.
   */
  open(): Promise<void>

  /** Release resources after in-flight calls finish. Idempotent. */
  close(): Promise<void>

  /**
   * Apply `ops` in ONE atomic transaction, in order, and return one result per op. This is
   * the group commit: the engine coalesces the writes of many runs into one call. Each op is
   * fenced or conditioned on its own; an op that does not apply never aborts the others.
   * Resolves only once the whole batch is durable. Rejects (nothing applied) on a store
   * failure; a rejection from a lost connection during commit is "outcome unknown": the caller
   * retries the same ops, which are idempotent by construction (creates report `exists`,
   * checkpoints `conflict` with the row that won, fenced ops `fenced`).
   */
  applyBatch(ops: readonly StoreOp[], now: number): Promise<OpResult[]>

  /**
   * Atomically lease up to `limit` claimable runs to `owner`: runs of a runnable workflow
   * version whose status is pending, waiting or running and whose `availableAt <= now`
   * (new work, due timers, expired leases): first up to `oldest` of them by least
   * `availableAt`, then the rest by highest `priority` and, within a priority, least
   * `availableAt` (each priority level is read by an index lookup, so sleeping runs and live
   * leases are never walked). Each claimed run gets
   * status `running`, `leaseOwner = owner`, epoch + 1, turns + 1, `availableAt = now +
   * leaseMs`, `waitingOn` null, and `recoveries + 1` when it was `running` (a takeover: its
   * holder's lease lapsed or reclaimOwned gave it back; RunRecord.recoveries). Two concurrent claims never return the same run. Retry: safe
   * (a run claimed by a call whose outcome was lost is recovered when that lease expires).
   */
  claimRuns(request: ClaimRequest): Promise<ClaimResult>

  /**
   * Make every `running` run leased to `owner` claimable now (`availableAt = now`): an engine
   * restarted under the same instance id takes its runs back at once instead of waiting for
   * lease expiry. The next claim increments their epochs. Returns how many. Idempotent.
   */
  reclaimOwned(owner: string, now: number): Promise<number>

  /**
   * Park runs that no engine can run: claimable (pending, waiting or running) since at least
   * `olderThan` (`availableAt <= olderThan`) and whose workflow version is NOT in `runnable`.
   * They get status `parked` with `reason` and `availableAt` null. Returns how many.
   */
  parkUnrunnable(
    runnable: readonly WorkflowKey[],
    olderThan: number,
    reason: ParkReason,
    now: number,
  ): Promise<number>

  /**
   * Unpark runs parked with `reasonCode` whose workflow version is in `keys`: status
   * `pending`, `availableAt = now`, reason cleared, `recoveries` 0; their queue items are
   * deleted and their unconsumed grant messages consumed (QueueRequest: they ask again).
   * Returns how many.
   * Idempotent.
   */
  unpark(keys: readonly WorkflowKey[], reasonCode: string, now: number): Promise<number>

  /**
   * Requeue a failed or dead run, in ONE transaction: when the run is `failed` or `dead` at
   * `request.epoch`, it becomes `pending` and claimable now (`availableAt = now`), with `error`,
   * `finishedAt`, `waitingOn` and `parkReason` cleared, `recoveries` 0, the epoch incremented (no holder of an earlier
   * lease can write again), and the `failed` checkpoints at `request.resetSeqs` removed; every
   * other checkpoint, the inbox, search attributes, input, turns and links stay as they are.
   * Otherwise nothing changes (`refused` / `not_found`). Two concurrent calls for one epoch:
   * exactly one applies, the other is `refused` with `pending`. A retry after an "outcome
   * unknown" failure is `refused` if the first call applied (re-read the run to know).
   * Rejects with E_INVALID_ARGUMENT (nothing applied) for a malformed `resetSeqs`.
   */
  requeueRun(request: RequeueRequest): Promise<RequeueResult>

  /**
   * For each of `keys` (at most 100; malformed ones are E_INVALID_ARGUMENT, nothing applied),
   * promote its oldest queued runs into its free slots (→ `pending`, claimable at `now`), under
   * the key's lock, by the rule an end naming the key applies (CreateRunOp.admission). The
   * safety net for runs that ended without naming their key (an engine of an earlier version, a
   * direct store call): their waiters would otherwise wait for the key's next start or end.
   * Each key is its own transaction. Returns how many runs were promoted.
   */
  promoteQueued(keys: readonly AdmissionKey[], now: number): Promise<number>

  /**
   * A page of the singleton keys that have at least one open run (admitted or queued, see
   * AdmissionKeyStats), of `query.scope` only when given, in (scope, key) code point order:
   * each with its stored limit (the newest writer's) and its runs counted as stored — never a
   * counter. Keys whose runs have all ended are not listed. Read-only; one read per page (SQL
   * stores: one statement walking the key table in key order from the cursor, each key's runs
   * counted through the admission index; keys without open runs are stepped over), so a key's
   * counts are one snapshot, though a page is no snapshot across pages. Rejects with
   * E_INVALID_ARGUMENT (nothing read) for a malformed query (store/admission_keys_query.ts:
   * a scope that is no valid scope, a limit outside 1..1000, a cursor that is not a non-empty
   * string) and E_INVALID_CURSOR for a cursor this store did not issue (garbage or altered).
   */
  admissionKeys(query: AdmissionKeysQuery): Promise<AdmissionKeyPage>

  /**
   * Let each of `queues` (at most 100 names; a malformed one is E_INVALID_ARGUMENT, nothing
   * applied) grant its waiters, each queue in its own transaction under its lock: while the
   * slots in use (granted items of runs that are not terminal) are fewer than its concurrency,
   * the next waiter (an item not granted whose run is pending, running, waiting or blocked) is
   * granted — the highest priority; within it, the fairness key granted least recently (never:
   * first); within that key, enqueue order — and its grant message delivered. Items of
   * terminal runs found on the way are deleted. A queue never written is skipped. The safety
   * net for slots freed by writes that did not name the queue, for a raised concurrency, and
   * for a queue whose rate allows a grant again (QueueThrottle.retryAt). A queue's rate stops
   * its pass as it stops any (QueueRateLimit). Returns the grants made and the queues the
   * rate stopped.
   */
  grantQueueSlots(queues: readonly string[], now: number): Promise<QueueGrantReport>

  /**
   * The queues of `queues` (at most 100 names) that exist, in name order (QueueStats), their
   * rate counted at `now`. One read per queue at most; not one snapshot across queues.
   * Read-only.
   */
  queueStats(queues: readonly string[], now: number): Promise<QueueStats[]>

  /**
   * Slot leases (docs/flow-control.md "Slot leases"): hold slots of a queue for `owner` (an
   * engine, which hands them to its own runs' attempts in memory) until `now + leaseMs`. In
   * one transaction under the queue's lock — the lock every enqueue, release and grant pass
   * takes — with the queue created (as by an enqueue) if never written and its concurrency set
   * to the request's:
   * - every lease of the queue with `expiresAt <= now` is deleted (it holds nothing);
   * - `free` = concurrency − the slots granted items hold (as grantQueueSlots counts them) −
   *   the slots of the other owners' leases, at least 0;
   * - the owner keeps `keep` = min(`inUse`, the slots of its unexpired lease) whatever the
   *   concurrency and the waiters (slots its attempts hold are never taken away, as a lowered
   *   concurrency evicts no granted item), and grows into `free` up to `want` — but while the
   *   queue has waiting items (`waiting` > 0: durable waiters come first) not past what it held
   *   before this call (0 when its lease had expired): `held` = max(`keep`, min(`want`,
   *   `free`)), the second term capped by its previous slots while waiters wait;
   * - its lease is written with `held` slots expiring at `now + leaseMs` (deleted when 0).
   * Every grant pass of every store counts the slots of unexpired leases as in use, so
   * granted items + leased slots never exceed the concurrency at any write. The call grants
   * no waiter: slots it gives back reach the waiters by the queue's next pass (a holder that
   * shrinks while `waiting` > 0 calls grantQueueSlots). Rejects with E_INVALID_ARGUMENT
   * (nothing applied) for a malformed request (checkQueueLease).
   */
  leaseQueueSlots?(request: QueueLeaseRequest, now: number): Promise<QueueLease>

  /** The run, or null if no run has this id. Reads committed state only. */
  getRun(runId: string): Promise<RunRecord | null>

  /** Every checkpoint of the run in `seq` order ([] for an unknown run). */
  loadCheckpoints(runId: string): Promise<CheckpointRecord[]>

  /**
   * The run's messages not yet consumed, in `seq` (acceptance) order ([] for an unknown run);
   * with `afterSeq`, only those numbered above it — a turn that has read the inbox up to a seq
   * reads only what came since (SQL stores: one range of the inbox's key, however many
   * messages the run consumed before). E_INVALID_ARGUMENT unless `afterSeq` is a non-negative
   * safe integer. Read-only; retry: safe.
   */
  loadInbox(runId: string, afterSeq?: number): Promise<InboxMessage[]>

  /**
   * OPTIONAL. Push a hint whenever a committed write made a run claimable (a run created
   * unclaimed, released, or suspended until a time), so engines in other processes pick it up
   * at once instead of at their next poll (Postgres: LISTEN/NOTIFY). `onWake(at)` receives the
   * earliest `availableAt` the write produced. Hints may be lost, duplicated or late: engines
   * keep polling as the safety net, and a hint never changes state. Resolves once listening;
   * the returned function stops listening. Stores without push (memory, SQLite, MySQL) omit it.
   */
  watchClaimable?(onWake: (at: number) => void): Promise<() => Promise<void>>

  /**
   * OPTIONAL (contracts/transactions.ts). A transactional step: open a database transaction on
   * the connection the application shares, call `work(handle)`, save the checkpoint it returns
   * by the saveCheckpoint rules under `fence` — but only on a `running` run (a cancelled run's
   * late outcome is not recorded: its writes roll back) — and commit. Atomic: the
   * application's writes and the checkpoint commit together or not at all; `fenced` and
   * `conflict` roll back (see TransactionalStepResult). `work` rejecting rolls back and
   * rejects with its error, unchanged; a store failure rejects with E_STORE_FAILURE, and one
   * during COMMIT is "outcome unknown": the caller retries, and a retry of a step that did
   * commit meets `conflict` (rolled back), so the writes never happen twice. Not batched:
   * runs beside applyBatch, whose writes it does not wait for (ordering is the caller's).
   * Stores whose connection is their own omit it.
   */
  runTransactionalStep?(fence: Fence, work: TransactionalWork): Promise<TransactionalStepResult>

  /**
   * A page of runs, newest first (or oldest first: `order`). Rejects with `E_INVALID_CURSOR`
   * for a cursor it did not issue (garbage or altered) or one issued for the other order, and
   * `E_INVALID_ARGUMENT` for a limit outside 1..1000, an unknown order or a malformed filter
   * (store/run_filters.ts and store/run_order.ts check the same way on every store). One read.
   */
  listRuns(query: ListRunsQuery): Promise<RunPage>

  /**
   * Counts of the runs matching `query`, per status (the query's `status` filter ignored) and
   * per workflow (its `workflow` filter ignored; the 100 largest, most first, ties by
   * workflow name in code point order). Every other filter applies as in listRuns, with the
   * same validation and errors. Counted by the store (grouped queries), never by loading
   * runs. NOT one snapshot: the two counts are two reads, so a run created or changing status
   * between them may be counted in one and not the other (or under its old status). Good for
   * a dashboard's overview, not for invariants. Reads committed state only.
   */
  facetRuns(query: RunFacetQuery): Promise<RunFacets>

  /**
   * The run's checkpoints at positions `seq >= page.fromSeq`, in `seq` order, at most
   * `page.limit` ([] for an unknown run or past the last one). One read. Rejects with
   * E_INVALID_ARGUMENT (nothing read) when `fromSeq` is not a non-negative safe integer or
   * `limit` is not an integer in 1..1000.
   */
  loadCheckpointPage(runId: string, page: CheckpointPage): Promise<CheckpointRecord[]>

  /**
   * Counts of the runs waiting for an engine at `now` (see RunBacklog). One consistent read
   * of aggregates (SQL stores: COUNT and MIN over indexes, no row is loaded). Read-only;
   * retry: safe.
   */
  backlog(now: number): Promise<RunBacklog>

  /**
   * Append `event` to the event log unless an event with its id is there already (then
   * nothing changes: `appended` false, no add applied, `batches` []). Resolves with the
   * stored `publishedAt` (the first publish's, for a retry), which is what waits compare with.
   *
   * `batches` (event_batches.ts; at most 32, no two naming one workflow and key): in the
   * append's transaction, the event's payload goes to each named accumulator — the open one
   * of its workflow and key, or a new one with the add's `openId` (an accumulator is open
   * until it is claimed; a `batch` one also until it holds `maxSize`). `debounce` replaces its
   * payload and moves its due time; `batch` appends (event_batch_rules.ts: `afterAdd`, with the
   * event's `publishedAt` as the time). An add that would open an accumulator under an id its
   * workflow and key already use rejects with E_INVALID_ARGUMENT. The answer lists each add's
   * accumulator as it is after the append, in the order given. Malformed adds reject with
   * E_INVALID_ARGUMENT and nothing is appended.
   *
   * Durable before it resolves. Then, in its own transaction, deletes at most `prune.limit`
   * events published before `prune.before` (pruning is best effort and never removes the
   * event just appended; accumulators keep their payloads). Retry: safe (by event id).
   */
  appendEvent(
    event: EventRecord,
    prune: EventPruning,
    batches?: readonly EventBatchAdd[],
  ): Promise<EventAppend>

  /**
   * Claim up to `limit` due accumulators of `workflows` — `dueAt <= now`, not claimed or
   * claimed with a lease ended before `now` — oldest due first: each is closed to adds from then on (an add
   * for its workflow and key opens a new one) and leased to `owner` until `now + leaseMs`.
   * One transaction; exact under racing claims (an accumulator goes to one claimer per lease).
   * Rejects with E_INVALID_ARGUMENT (nothing claimed) on a malformed request.
   */
  claimEventBatches(request: ClaimEventBatchesRequest): Promise<ClaimedEventBatches>

  /**
   * Delete the accumulator `id` of `workflow` and `key` with its payloads, once its run
   * exists. Unknown ones are skipped (a retry, or a takeover deleted it). Resolves true when
   * it deleted one. Retry: safe.
   */
  deleteEventBatch(workflow: string, key: string, id: string): Promise<boolean>

  /**
   * Create a schedule or replace one (SchedulePut: revision + 1, its lease dropped). One
   * transaction. Resolves with the stored record; null only for a put with `ifRevision` that
   * found no schedule at that revision (nothing written). E_INVALID_ARGUMENT (nothing written) for a
   * malformed put. Retry: safe (a second put bumps the revision again, harmlessly).
   */
  putSchedule(put: SchedulePut): Promise<ScheduleRecord | null>

  /** The schedule `id`, or null. */
  getSchedule(id: string): Promise<ScheduleRecord | null>

  /** Schedules by id (code-point order), after `query.after`, at most `query.limit`. */
  listSchedules(query: ScheduleListQuery): Promise<ScheduleRecord[]>

  /** Delete schedule `id`; true when it existed. A firing in flight is refused its advance. */
  deleteSchedule(id: string): Promise<boolean>

  /**
   * Lease up to `limit` due schedules of `workflows` to `owner` until `now + leaseMs`: not
   * paused, `nextAt <= now`, lease free or lapsed (`leaseUntil <= now`), oldest due first
   * (then by id). One transaction; exact under racing claimers (a schedule goes to one claimer
   * per lease). Also answers the earliest `nextAt` among the rest of those workflows' schedules
   * (not paused; leased ones count at their `nextAt`, which may be past: the claimer looks again later, not at once). E_INVALID_ARGUMENT for a malformed request.
   */
  claimDueSchedules(request: ClaimSchedulesRequest): Promise<ClaimedSchedules>

  /**
   * Write a firing's outcome (ScheduleAdvance: state replaced, counters added to) and release
   * the lease — only while `leaseOwner` is `advance.owner` (its lease, lapsed or not, was not
   * taken by another claimer, nor dropped by a put or a delete) and the revision is
   * `advance.revision`; else `stale`, nothing written. One conditional write.
   * E_INVALID_ARGUMENT for a malformed one.
   */
  advanceSchedule(advance: ScheduleAdvance): Promise<ScheduleAdvanceResult>

  /** The logged events named `name` published at or after `since`, oldest first (then by id). */
  loadEvents(name: string, since: number): Promise<EventRecord[]>

  /** Every registered event wait for events named `name` (one index range), in no set order. */
  loadEventWaits(name: string): Promise<EventWaitRecord[]>

  /**
   * Remove the registered event waits at these places (stale ones: their run ended or was
   * cancelled). Places with nothing registered are skipped. Returns how many were removed.
   */
  removeEventWaits(waits: readonly EventWaitRef[]): Promise<number>

  /**
   * The position of the `keepNewest`-th newest finished run in the query's scope (the oldest
   * one a count policy keeps), or null when the scope holds fewer runs. One consistent read;
   * its cost grows with `keepNewest` (index entries, never table rows).
   * E_INVALID_ARGUMENT for a malformed query.
   */
  retentionCutoff(query: RetentionCutoffQuery): Promise<FinishedPosition | null>

  /**
   * Up to `limit` finished runs of the query's scope between `after` and `before`, whose parent
   * is absent or finished, oldest first: one index range per status (never a table scan), one
   * consistent read. A short page means no more. E_INVALID_ARGUMENT for a malformed query.
   */
  expiredRuns(query: ExpiredRunsQuery): Promise<FinishedPosition[]>

  /**
   * Delete run trees (contracts/retention.ts): ONE transaction that locks each tree's runs and
   * its root's parent, walks the tree by parent, refuses a tree with an open run or an open
   * parent, and deletes the others with every row of theirs, at most `maxRuns` runs in all.
   * A refused tree never aborts the others. Racing calls delete a tree once (the later one
   * finds it `not_found`); a requeue racing a delete either runs first (the tree is refused)
   * or finds the run gone. Retry: safe. E_INVALID_ARGUMENT (nothing deleted) for a malformed
   * request.
   */
  deleteRunTrees(request: DeleteRunTreesRequest): Promise<DeleteRunTreesResult>

  /**
   * The search attributes of each of `runIds` (at most 1000) that has any: runs without
   * attributes, and unknown ids, are absent from the map. Time values come back as Dates.
   * Reads committed state only; one consistent read for all the ids.
   */
  loadSearchAttributes(runIds: readonly string[]): Promise<Map<string, SearchAttributes>>

  /**
   * Merge live step lines and progress (contracts/step_logs.ts), at most 100 appends, in ONE
   * transaction: each into its position's record (created on first use; the cap applied,
   * oldest dropped and counted; entries an execution already sent are merged once). Not
   * fenced, and whatever the position's checkpoint: a line a step logged is kept whoever
   * holds the lease, and lines sent after the outcome was saved (a transactional step's,
   * which commit with the application's writes) still land. An append whose run does not
   * exist is skipped (nothing written). Concurrent appends to one position are serialized:
   * none is lost. Resolves to the number of appends merged. Retry: safe. E_INVALID_ARGUMENT (nothing written) for a
   * malformed append (step_logs/step_log_rules.ts).
   */
  appendStepLogs(appends: readonly StepLogAppend[], now: number): Promise<number>

  /**
   * The log records of the run's positions `seq >= page.fromSeq` that have one, in `seq`
   * order, at most `page.limit` ([] for an unknown run). One read. E_INVALID_ARGUMENT for a
   * page outside the rules of loadCheckpointPage. A run's records are deleted with it
   * (deleteRunTrees); requeueRun keeps them (the lines of the failed attempts stay, and the
   * re-run's lines follow); a fork's copied positions do not copy them.
   */
  loadStepLogs(runId: string, page: StepLogPage): Promise<StepLogRecord[]>
}
