/**
 * Step logs and progress: what a step's code reports while it runs (`stepCtx.log.info(…)`,
 * `stepCtx.progress(…)`), kept per position of a run. Types only.
 *
 * A position keeps ONE log record across its attempts, its executions (an attempt run again
 * after a crash or a redelivery) and a requeue: entries oldest first, at most the append's
 * `maxEntries` (oldest dropped past it, counted in `dropped`), and the newest progress.
 *
 * Writes are appends, safe to repeat: each names the **execution** that produced it (an opaque
 * string: in process the lease epoch and attempt, on a worker the task and worker) and numbers
 * its entries 0, 1, … within that execution. A store keeps, per execution, the highest number
 * it merged, so an entry sent twice (a live flush, then again with the outcome; a heartbeat,
 * then the result) is merged once, and a number skipped (entries the producer dropped before
 * sending: it keeps a bounded buffer) counts as dropped. Two ways in:
 * - with the step's outcome: `SaveCheckpointOp.logs`, merged iff the save applies, in its
 *   transaction, so a settled step's record holds every line its producer still had;
 * - live, while the step runs: `StateStore.appendStepLogs`, throttled by the engine (in
 *   process) or carried by a remote worker's heartbeats — and after the outcome, for lines
 *   logged by code the step left running (a timed-out attempt, a promise it did not await).
 * (A transactional step's lines ride on its transactional save: TransactionalSave.logs.)
 */

export type StepLogLevel = 'info' | 'warn' | 'error'

/** One line a step logged. */
export interface StepLogEntry {
  /** Number within its execution: 0, 1, … (see above). */
  i: number
  /** When it was logged (epoch ms, the producer's clock). */
  at: number
  level: StepLogLevel
  /** The attempt (1, 2, …) that logged it. */
  attempt: number
  /** At most MAX_STEP_LOG_MESSAGE characters; a longer message is cut and `truncated` set. */
  message: string
  /** The fields as codec text (what `codec.encode(fields)` wrote); absent: none given. */
  fields?: string
  /** Set when the message was cut, or the fields were left out (too large or not encodable). */
  truncated?: true
}

/** What `stepCtx.progress(…)` reported last. */
export interface StepProgressRecord {
  /** Number within its execution (0, 1, …): a repeated or older report is ignored. */
  p: number
  at: number
  attempt: number
  /** In [0, 1]: given, or `done / total`; null when `total` is 0. */
  fraction: number | null
  done?: number
  total?: number
}

/** Lines and progress of one position, to merge into its record. */
export interface StepLogAppend {
  runId: string
  seq: number
  /** Who produced them (1..200 characters); numbering is per execution. */
  execution: string
  /** The step's name, when the producer knows it (a remote worker's heartbeat does not). */
  name?: string
  /** Numbered entries, `i` strictly increasing; at most MAX_STEP_LOG_APPEND. May be empty. */
  entries: readonly StepLogEntry[]
  /** The newest progress of this execution, if any. */
  progress?: StepProgressRecord
  /** The most entries the position keeps, 1..MAX_STEP_LOG_ENTRIES: older ones are dropped. */
  maxEntries: number
}

/** A position's log record as read back (StateStore.loadStepLogs). */
export interface StepLogRecord {
  runId: string
  seq: number
  /** The step's name as the newest append that gave one said; null until one did. */
  name: string | null
  /** Oldest first, across attempts and executions, in the order they were merged. */
  entries: StepLogEntry[]
  /** Entries logged but not kept: dropped past the cap, or by their producer before sending. */
  dropped: number
  progress: StepProgressRecord | null
  /** When an append last changed it (engine clock). */
  updatedAt: number
}

/**
 * loadStepLogs' range: positions `seq >= fromSeq`, at most `limit` (1..1000) records; with
 * `updatedFrom`, only the records an append changed at or after that time (their `updatedAt`,
 * the writing engine's clock) — what a live view re-reads cheaply.
 */
export interface StepLogPage {
  fromSeq: number
  limit: number
  updatedFrom?: number
}
