/**
 * Rows a StateStore keeps, as the engine sees them. Types only.
 *
 * Payloads (`input`, `output`, `error`) are codec output: strings of JSON text that never
 * contain a raw NUL byte or a lone surrogate, so every store keeps them byte for byte.
 * Times are integer milliseconds since the Unix epoch, read from the engine's Clock.
 */

/**
 * Where a run is in its life. Allowed moves (I12):
 *   pending  → running | cancelled | parked
 *   running  → running (re-claim after lease expiry, epoch + 1) | waiting | pending
 *              | completed | failed | cancelled | parked
 *   waiting  → running (wake) | cancelled | parked
 *   blocked  → running (wake) | cancelled | parked — a waiting run whose last suspend found a
 *              remote step no live worker can serve (SuspendRunOp.blocked); in every other
 *              respect (timers, messages, claims, fences) exactly a waiting run
 *   parked   → pending (unpark) | cancelled
 *   queued   → pending (promoted into a freed admission slot) | cancelled — created over its
 *              singleton key's limit (CreateRunOp.admission); not claimable
 *   completed | failed | cancelled | continued | dead: terminal, absorbing (I5) but for an
 *   operator's requeue (failed, dead). `continued`: the run ended with `ctx.continueAsNew` and
 *   its successor (`continuedTo`) carries on. `dead`: an engine gave up recovering it — its
 *   lease was taken over more than `maxRecoveryAttempts` times without the run moving on
 *   (`recoveries`); the reason is its `error`.
 */
export type RunStatus =
  | 'pending'
  | 'running'
  | 'waiting'
  | 'blocked'
  | 'completed'
  | 'failed'
  | 'cancelled'
  | 'continued'
  | 'parked'
  | 'queued'
  | 'dead'

export type TerminalStatus = 'completed' | 'failed' | 'cancelled' | 'continued' | 'dead'

/** Identifies one registered workflow implementation. */
export interface WorkflowKey {
  workflow: string
  version: string
}

/** Why a run is parked: a stable code and a sentence an operator can act on. */
export interface ParkReason {
  code: string
  message: string
  /** Free-form details (recorded vs attempted step for non-determinism, etc.). */
  details?: Record<string, unknown>
}

export interface RunRecord {
  id: string
  workflow: string
  version: string
  status: RunStatus
  /** Encoded input, exactly as given to `start`. */
  input: string
  /** Encoded output once completed, else null. */
  output: string | null
  /** Encoded SerializedError once failed or cancelled, else null. */
  error: string | null
  /** Why the run is parked (status `parked`), else null. */
  parkReason: ParkReason | null
  /**
   * What the run waits on while `waiting` or `blocked` (e.g. `sleep until …`; for a blocked
   * run, what no live worker offers first), for operators; else null.
   */
  waitingOn: string | null
  createdAt: number
  updatedAt: number
  /** Set when the run reaches a terminal status. */
  finishedAt: number | null
  /**
   * When the run may next be claimed: creation time for a pending run, the wake time of a
   * waiting or blocked run, the lease expiry of a running run; null when nothing will make it
   * claimable by itself (terminal, parked).
   */
  availableAt: number | null
  /** Instance id of the lease holder (or last holder); null if never claimed. */
  leaseOwner: string | null
  /**
   * Fencing token: incremented by every claim (and by a cancel and a requeue, which end or
   * reset a lease). 0 until the first claim.
   */
  leaseEpoch: number
  /**
   * Number of claims so far (turns started): createRun with `claim` sets 1, each claimRuns that
   * takes the run adds 1, and nothing else changes it. Since a checkpoint is only written under
   * a claimed lease (or seeded by createRun), a claim returning `turns === 1` found a run with no
   * checkpoint but its seed — the engine relies on this (engine/claimed_run_state.ts), and the
   * conformance suite tests it (claim_counters.ts).
   */
  turns: number
  /**
   * Takeovers since the run last moved on: each claimRuns that takes a `running` run (its
   * holder's lease lapsed, or reclaimOwned handed it back after its holder's restart) adds 1;
   * a suspend, a release (a drain's hand-back), a requeue, an unpark and a lease renewal that
   * reports progress (RenewLeaseOp.progressed) set it to 0; nothing else changes it. The engine
   * ends a run `dead` when a claim returns it above `maxRecoveryAttempts`: a run whose turns
   * keep dying (its process crashes, its history cannot be read) is not reclaimed forever.
   */
  recoveries: number
  /**
   * Messages (signals) accepted for this run so far: the inbox sequence of the latest one,
   * 0 if none. A suspend names the highest it has seen, so a message that lands while the run
   * is executing wakes it at once (no lost wake-up). As a claim returns it, it counts every
   * message accepted before that claim: 0 there means an empty inbox.
   */
  inboxSeq: number
  /** The run that started this one with `ctx.child` (null for a top-level run). */
  parentRunId: string | null
  /** The parent's position waiting for this run's outcome (null for a top-level run). */
  parentSeq: number | null
  /** The run this one continues (`ctx.continueAsNew`), or null. */
  continuedFrom: string | null
  /** Status `continued`: the successor carrying on; else null. */
  continuedTo: string | null
  /**
   * Labels given at start (`engine.start(…, { tags })`), in the order given; [] when none.
   * Fixed at creation: nothing changes them afterwards.
   */
  tags: readonly string[]
  /** The run this one was made from by an operator (retry with edited input, fork), or null. */
  origin: RunOrigin | null
  /**
   * The singleton key the run was admitted (or queued, status `queued`) under, or null. Kept
   * after the run ends; only a non-terminal, non-queued run holds a slot.
   */
  admission: { scope: string; key: string } | null
  /**
   * Claim priority, -1000 to 1000 (0 unless given at creation): among claimable runs a claim
   * takes higher priority first (ClaimRequest). Fixed at creation.
   */
  priority: number
  /**
   * The named queue the whole run holds a slot of while it executes (`engine.start(…, {
   * queue })`), or null. Fixed at creation. The slot itself is a queue item of the run
   * (RUN_SLOT_SEQ), asked for by the run's turns, not by the create.
   */
  queue: string | null
}

/** How an operator made a run from another one (`engine.retryWithInput`, `engine.fork`). */
export interface RunOrigin {
  /** retry: "retry with edited input"; fork: re-run from a position reusing earlier results. */
  kind: 'retry' | 'fork'
  runId: string
  /** fork: first position that runs again (positions before it were copied); retry: null. */
  fromSeq: number | null
}

/** `signal`: sent to a run (engine.signal); `event`: a broadcast event delivered to one wait. */
export type MessageKind = 'signal' | 'event'

/**
 * A message accepted into a run's inbox (a signal), kept until a wait consumes it. Messages of
 * one run are numbered 1, 2, … in acceptance order; waits consume them in that order.
 */
export interface InboxMessage {
  runId: string
  /** Acceptance order within the run (1, 2, …). */
  seq: number
  kind: MessageKind
  /** The signal name the message is addressed to. */
  name: string
  /** Caller's id for deduplication (a resend with the same id is accepted once), or null. */
  dedupeId: string | null
  /** Encoded payload (codec output). */
  payload: string
  acceptedAt: number
}

export type CheckpointKind =
  | 'local'
  // ctx.step: a registered step, called by name. Its kind does not say where it ran, so a
  // step later placed on a remote worker keeps the history it recorded in-process.
  | 'step'
  | 'sleep'
  | 'side_effect'
  | 'patch'
  | 'signal'
  | 'breakpoint'
  | 'set_event'
  | 'child'
  | 'webhook'
  | 'update'
  | 'event'
  // ctx.upsertSearchAttributes. Kinds stay within 16 characters: MySQL's column is VARCHAR(16).
  | 'search_attrs'
  // ctx.transaction: a step whose database writes commit with its checkpoint.
  | 'transaction'

/**
 * `completed` / `failed`: an outcome delivered to the workflow; never changes again (I1).
 * `retrying`: a local step failed an attempt and retries at `wakeAt`.
 * `waiting`: a durable wait not yet over: a sleep due at `wakeAt`, or a signal wait whose
 *   timeout falls at `wakeAt` (null: no timeout).
 */
export type CheckpointStatus = 'completed' | 'failed' | 'retrying' | 'waiting'

export interface CheckpointRecord {
  runId: string
  /** Position: taken synchronously when the workflow calls a ctx primitive. Dense from 0. */
  seq: number
  name: string
  kind: CheckpointKind
  status: CheckpointStatus
  /** Attempts made so far (local steps); 1 for other kinds. */
  attempts: number
  /**
   * Delivery order of a `completed`/`failed` outcome within its run (1, 2, …). Replay
   * delivers recorded outcomes in this order, so concurrent branches interleave as they
   * did the first time. Null while not delivered.
   */
  order: number | null
  /**
   * The encoded input of a registered step (kind `step`) as the codec wrote it — the text a
   * remote worker would receive. Null for kinds without an input (a local step is a closure)
   * and for rows written before migration 008; for a registered step, also when it was called
   * without input or the codec refused the input (the step failed E_NOT_SERIALIZABLE).
   */
  input: string | null
  output: string | null
  error: string | null
  /** Due time of a `waiting` sleep or a `retrying` step; the original due time of a fired sleep. */
  wakeAt: number | null
  startedAt: number
  updatedAt: number
  /**
   * A remote step's attempt as its worker reported it (kind `step` on a transport): which worker
   * ran the attempt this checkpoint records, and when it picked the task up and finished, by the
   * worker's clock. Null for everything else, and for rows written before migration 11.
   */
  worker: StepWorker | null
}

/** Who ran a remote step's attempt (CheckpointRecord.worker). */
export interface StepWorker {
  /** The worker's id (its announcement's `workerId`). */
  id: string
  /** When its handler started (epoch ms, the worker's clock). */
  startedAt: number
  /** When its handler finished (epoch ms, the worker's clock). */
  finishedAt: number
}

/**
 * A broadcast event in the event log (`engine.publishEvent`): kept for a retention window so
 * a run whose wait was not yet registered when the event was published still finds it.
 */
export interface EventRecord {
  /** Unique: a publish retried with the same id stores nothing new. */
  id: string
  name: string
  /** Encoded payload (codec output). */
  payload: string
  /** When it was first published (engine clock). */
  publishedAt: number
}

/**
 * A registered `ctx.waitForEvent`: the run `runId` waits at position `seq` for an event
 * `name` published at or after `startedAt` whose payload matches `match`.
 */
export interface EventWaitRecord {
  runId: string
  seq: number
  name: string
  /** The wait's match as JSON text (an object of dotted path → scalar), or null: any event. */
  match: string | null
  /** When the wait began (engine clock): events published earlier never reach it. */
  startedAt: number
}
