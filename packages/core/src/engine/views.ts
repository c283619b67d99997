/**
 * What the engine's read API returns: stored records with payloads decoded and times as
 * Dates. Types and the mapping functions.
 */
import type { Codec, SerializedError } from '../contracts/codec.ts'
import type {
  CheckpointKind,
  CheckpointRecord,
  CheckpointStatus,
  ParkReason,
  RunOrigin,
  RunRecord,
  RunStatus,
  TerminalStatus,
} from '../contracts/records.ts'
import type { SearchAttributes } from '../contracts/search_attributes.ts'
import { RUN_SLOT_SEQ } from '../store/queue_check.ts'

export interface RunInfo<I = unknown, O = unknown> {
  id: string
  workflow: string
  version: string
  status: RunStatus
  input: I
  output: O | undefined
  error: SerializedError | null
  parkReason: ParkReason | null
  waitingOn: string | null
  /** When a waiting run wakes next (its earliest timer), else null. */
  wakeAt: Date | null
  /**
   * When a driving engine may claim the run: a pending run's since-when, a waiting run's wake
   * time, a running run's lease expiry (the holder renews it while alive); null for parked and
   * finished runs. Long past for an open run means no engine is picking it up.
   */
  claimableAt: Date | null
  createdAt: Date
  updatedAt: Date
  finishedAt: Date | null
  /** Times the run was claimed (turns started). */
  turns: number
  /**
   * Takeovers since the run last moved on (its lease lapsed or its engine restarted while
   * holding it); above `maxRecoveryAttempts` the run ends `dead` (docs/dead-letters.md).
   */
  recoveries: number
  leaseOwner: string | null
  /** The run that started this one as its child (ctx.child / ctx.startChild), or null. */
  parentRunId: string | null
  /** The position in the parent's history this child run was started at, or null. */
  parentSeq: number | null
  /** The run this one continues (ctx.continueAsNew), or null. */
  continuedFrom: string | null
  /** Status `continued`: the successor that carries on; else null. */
  continuedTo: string | null
  /**
   * The run's search attributes (`ctx.upsertSearchAttributes`), {} when it has none. Read
   * right after the run row, in a second read: an upsert committed in between shows.
   */
  searchAttributes: SearchAttributes
  /** Labels given at start, [] when none. */
  tags: readonly string[]
  /** The run this one was made from (`engine.retryWithInput`, `engine.fork`), or null. */
  origin: RunOrigin | null
  /** Claim priority, -1000 to 1000 (0 unless given): higher runs are claimed first. */
  priority: number
  /** The singleton key the run was admitted (or queued) under, or null (docs/flow-control.md). */
  singletonKey: string | null
  /** The named queue the whole run executes in (`start(…, { queue })`), or null. */
  queue: string | null
}

export interface StepInfo {
  seq: number
  name: string
  kind: CheckpointKind
  status: CheckpointStatus
  attempts: number
  /** Delivery order of a completed/failed outcome within the run (1, 2, …); null while open. */
  order: number | null
  /**
   * A registered step's input (`ctx.step(name, input)`), decoded from the text recorded with
   * its checkpoint; undefined when none was recorded: local steps (closures), other kinds, a
   * step called without input, checkpoints written before inputs were stored.
   */
  input: unknown
  output: unknown
  error: SerializedError | null
  wakeAt: Date | null
  startedAt: Date
  updatedAt: Date
  /** A remote step's recorded attempt: the worker that ran it (null otherwise). */
  worker: StepWorkerInfo | null
}

/** Who ran a remote step's attempt, and how long its task waited (StepInfo.worker). */
export interface StepWorkerInfo {
  id: string
  /** When the worker's handler started and finished (the worker's clock). */
  startedAt: Date
  finishedAt: Date
  /**
   * From the dispatch (engine clock) to the worker's start (worker clock): the time the task
   * waited for a worker, give or take the two clocks' skew (0 when the skew makes it negative).
   */
  queuedMs: number
}

export type RunOutcome<O = unknown> =
  | { runId: string; status: 'completed'; output: O }
  | { runId: string; status: 'failed' | 'cancelled' | 'dead'; error: SerializedError }

export function toRunInfo<I, O>(
  run: RunRecord,
  codec: Codec,
  searchAttributes: SearchAttributes = {},
): RunInfo<I, O> {
  return {
    id: run.id,
    workflow: run.workflow,
    version: run.version,
    status: run.status,
    input: codec.decode(run.input) as I,
    output: run.output === null ? undefined : (codec.decode(run.output) as O),
    error: run.error === null ? null : (codec.decode(run.error) as SerializedError),
    parkReason: run.parkReason,
    waitingOn: run.waitingOn,
    wakeAt:
      (run.status === 'waiting' || run.status === 'blocked') && run.availableAt !== null
        ? new Date(run.availableAt)
        : null,
    claimableAt: run.availableAt === null ? null : new Date(run.availableAt),
    createdAt: new Date(run.createdAt),
    updatedAt: new Date(run.updatedAt),
    finishedAt: run.finishedAt === null ? null : new Date(run.finishedAt),
    turns: run.turns,
    recoveries: run.recoveries,
    leaseOwner: run.leaseOwner,
    parentRunId: run.parentRunId,
    parentSeq: run.parentSeq,
    continuedFrom: run.continuedFrom,
    continuedTo: run.continuedTo,
    searchAttributes,
    tags: run.tags,
    origin: run.origin,
    priority: run.priority,
    singletonKey: run.admission?.key ?? null,
    queue: run.queue,
  }
}

/**
 * The checkpoints a timeline shows: every position of the body. A run on a queue also keeps
 * its slot's request (RUN_SLOT_SEQ, run_slot.ts): not a step — the run's status and
 * `waitingOn` say when it waits for its slot — so left out.
 */
export function timelineRecords(records: readonly CheckpointRecord[]): CheckpointRecord[] {
  return records.filter((record) => record.seq !== RUN_SLOT_SEQ)
}

export function toStepInfo(record: CheckpointRecord, codec: Codec): StepInfo {
  return {
    seq: record.seq,
    name: record.name,
    kind: record.kind,
    status: record.status,
    attempts: record.attempts,
    order: record.order,
    input: record.input === null ? undefined : codec.decode(record.input),
    output: record.output === null ? undefined : codec.decode(record.output),
    error: record.error === null ? null : (codec.decode(record.error) as SerializedError),
    wakeAt: record.wakeAt === null ? null : new Date(record.wakeAt),
    startedAt: new Date(record.startedAt),
    updatedAt: new Date(record.updatedAt),
    worker:
      record.worker === null
        ? null
        : {
            id: record.worker.id,
            startedAt: new Date(record.worker.startedAt),
            finishedAt: new Date(record.worker.finishedAt),
            queuedMs: Math.max(0, record.worker.startedAt - record.startedAt),
          },
  }
}

export function toOutcome<O>(run: RunRecord, codec: Codec): RunOutcome<O> {
  return terminalOutcome(
    run.id,
    { status: run.status as FinalStatus, output: run.output, error: run.error },
    codec,
  )
}

/** A run's own ending; `continued` is never one (waitForRun follows the chain past it). */
export type FinalStatus = Exclude<TerminalStatus, 'continued'>

export function terminalOutcome<O>(
  runId: string,
  end: { status: FinalStatus; output: string | null; error: string | null },
  codec: Codec,
): RunOutcome<O> {
  if (end.status === 'completed') {
    return {
      runId,
      status: 'completed',
      output: (end.output === null ? undefined : codec.decode(end.output)) as O,
    }
  }
  const error =
    end.error === null
      ? { name: 'Error', message: `run ${end.status}` }
      : (codec.decode(end.error) as SerializedError)
  return { runId, status: end.status, error }
}
