/**
 * Event accumulators (a workflow's `onEvent` trigger with `batch`): the store keeps, per
 * workflow and key, the payloads of matching events until the accumulator is due, and any
 * driving engine then starts one run from it. Types only; the StateStore methods that use them
 * are `appendEvent` (adds, in the append's own transaction), `claimEventBatches` and
 * `deleteEventBatch`.
 *
 * Exactly once: an add belongs to the event's append (a retried publish of an event id adds
 * nothing twice), an accumulator is closed to adds once claimed, and the run it starts has an
 * id derived from the accumulator's id, so a claim taken over after a crash starts nothing
 * twice (the store creates a run id once).
 */

/** One accumulator an event's payload goes to (StateStore.appendEvent's `batches`). */
export interface EventBatchAdd {
  /** The workflow whose run the accumulator starts (its name; any version). */
  workflow: string
  /**
   * Which of the workflow's accumulators: the trigger's `key(payload)`, '' for one per
   * workflow. 0..200 code points, well formed, no NUL.
   */
  key: string
  /**
   * `debounce`: the accumulator keeps only the newest payload, and is due `windowMs` after it
   * — but no later than `maxWaitMs` after its first, when given. `batch`: it keeps every
   * payload in append order, and is due `windowMs` after its first, or at once when it holds
   * `maxSize`.
   */
  mode: 'debounce' | 'batch'
  /** 1..MAX_TIME_MS. */
  windowMs: number
  /** `batch`: 1..1000 (MAX_EVENT_BATCH_SIZE): a full accumulator is due at once. `debounce`: null. */
  maxSize: number | null
  /** `debounce`: null, or 1..MAX_TIME_MS. `batch`: null. */
  maxWaitMs: number | null
  /**
   * The id the accumulator gets if this add opens a new one (ignored when it joins one that
   * is open): unique, chosen by the caller (a UUID), an identifier of 1..255 characters. The
   * run the accumulator starts derives its id from it.
   */
  openId: string
}

/** Where an add left its accumulator (StateStore.appendEvent's answer, one per add). */
export interface EventBatchState {
  workflow: string
  key: string
  /** The accumulator's id (the add's `openId` when it opened it). */
  id: string
  /** Payloads it holds now (1 for a debounce). */
  size: number
  /** When it is due: a driving engine claims it then. */
  dueAt: number
}

/** A due accumulator as `claimEventBatches` hands it to the engine that starts its run. */
export interface ClaimedEventBatch {
  workflow: string
  key: string
  id: string
  mode: 'debounce' | 'batch'
  /**
   * The encoded payloads, in append order (a debounce holds its newest only), as the events
   * carried them.
   */
  payloads: string[]
  /** The ids of the events whose payloads these are, in the same order. */
  eventIds: string[]
  /** When its first event was added, and when it came due. */
  firstAt: number
  dueAt: number
}

export interface ClaimEventBatchesRequest {
  now: number
  /** At most this many accumulators (1..100). */
  limit: number
  /** The claiming engine's instance id, as a run claim's. */
  owner: string
  /**
   * Only accumulators of these workflows (the ones the claiming engine can start runs of:
   * 1..1000 names, each a workflow name); others are left for engines that register them.
   */
  workflows: readonly string[]
  /** How long the claim holds (1..MAX_TIME_MS): past it, another claim may take it over. */
  leaseMs: number
}

export interface ClaimedEventBatches {
  claimed: ClaimedEventBatch[]
  /**
   * The earliest time an accumulator can be claimed after this call — the due time of an
   * unclaimed one, the lease end of a claimed one not deleted (those this call claimed too) —
   * or null when there is none: when to ask again.
   */
  nextAt: number | null
}
