/**
 * A run's recorded history as a document (`engine.exportHistory`): what a replay test needs to
 * run today's workflow code against what a real run recorded (`replayHistory` in
 * `@cairn/core/testing`). Versioned, plain JSON: keep it as a fixture, diff it, read it back
 * with `JSON.parse` — numbers, strings and nulls only.
 *
 * Payloads stay as the store keeps them (the codec's text), never decoded: a decode and a
 * re-encode need not give the same text (a custom codec, a payload transform such as
 * encryption), and a replay must see exactly the bytes the run saw. So a history replays with
 * the codec of the engine that recorded it.
 *
 * The run's inbox is not exported: a replay reads a received signal (or child outcome, or
 * update) from the checkpoint that recorded it, and an unconsumed message could only be
 * received at a position the history does not record, which a replay does not enter.
 */
import type { CheckpointRecord, ParkReason, RunRecord, RunStatus } from '../contracts/records.ts'
import type { StateStore } from '../contracts/state_store.ts'
import { InvalidArgumentError, RunNotFoundError } from '../errors/index.ts'
import { timelineRecords } from './views.ts'

export const HISTORY_FORMAT: RecordedHistory['format'] = 'cairn.history'
export const HISTORY_VERSION: RecordedHistory['version'] = 1

/** The run a history belongs to, as the store recorded it when exported. */
export interface RecordedRun {
  id: string
  workflow: string
  /** The version the run executes: a replay runs the code registered under it. */
  version: string
  /** Status when exported (a replay works from any: a finished run replays to its end). */
  status: RunStatus
  /** The run's input as the codec wrote it (`payloads`): the text the body was given. */
  input: string
  /** Encoded output (completed), else null. */
  output: string | null
  /** Encoded SerializedError (failed, cancelled), else null. */
  error: string | null
  /** Why the run is parked, else null: a parked E_NON_DETERMINISM run is a ready-made test. */
  parkReason: ParkReason | null
  /** Creation time (ms since the epoch): `ctx.now()` before the first outcome. */
  createdAt: number
  updatedAt: number
  finishedAt: number | null
  /** The parent of a child run, or null (a replay runs the child on its own). */
  parentRunId: string | null
  /** The run this one continues (`ctx.continueAsNew`), or null. */
  continuedFrom: string | null
  tags: readonly string[]
}

/**
 * `engine.exportHistory(runId)`: one run's recorded history, version 1.
 *
 * Not one snapshot of a busy run: the run and its checkpoints are two reads, so a run
 * executing meanwhile may show a newer position than its status says. Export finished,
 * waiting or parked runs for fixtures.
 */
export interface RecordedHistory {
  /** Always `'cairn.history'`: what this document is. */
  format: 'cairn.history'
  /** Format version; a reader refuses a version it does not know. */
  version: 1
  /** When it was exported (engine clock, ms since the epoch). */
  exportedAt: number
  /**
   * How payloads are written: `'codec'` — `run.input` and each checkpoint's `input`,
   * `output` and `error` are the text the recording engine's codec produced. Replay with an
   * engine configured with the same codec (and payload transform).
   */
  payloads: 'codec'
  run: RecordedRun
  /**
   * Every position of the run's body, in `seq` order, exactly as stored (CheckpointRecord):
   * delivered outcomes (`completed`, `failed`, with their delivery `order`) and open waits
   * (`waiting`, `retrying`). A run's own queue-slot request is left out: it is not a position.
   */
  checkpoints: CheckpointRecord[]
}

/** Read a run and its checkpoints from `store` as a RecordedHistory; E_RUN_NOT_FOUND if none. */
export async function exportHistory(
  store: StateStore,
  runId: string,
  now: number,
): Promise<RecordedHistory> {
  const run = await store.getRun(runId)
  if (run === null) throw new RunNotFoundError(`no run with id "${runId}"`, { details: { runId } })
  const checkpoints = timelineRecords(await store.loadCheckpoints(runId))
  return {
    format: HISTORY_FORMAT,
    version: HISTORY_VERSION,
    exportedAt: now,
    payloads: 'codec',
    run: recordedRun(run),
    checkpoints: checkpoints.map((record) => ({ ...record })),
  }
}

function recordedRun(run: RunRecord): RecordedRun {
  return {
    id: run.id,
    workflow: run.workflow,
    version: run.version,
    status: run.status,
    input: run.input,
    output: run.output,
    error: run.error,
    parkReason: run.parkReason,
    createdAt: run.createdAt,
    updatedAt: run.updatedAt,
    finishedAt: run.finishedAt,
    parentRunId: run.parentRunId,
    continuedFrom: run.continuedFrom,
    tags: [...run.tags],
  }
}

/**
 * `value` as a RecordedHistory (a parsed fixture), checked enough to replay safely:
 * E_INVALID_ARGUMENT naming the first problem — another format or version, a missing run
 * field, a checkpoint without a position, name, kind or status.
 */
export function checkRecordedHistory(value: unknown): RecordedHistory {
  const doc = value as Partial<RecordedHistory> | null
  if (typeof doc !== 'object' || doc === null) throw invalid('a history is an object')
  if (doc.format !== HISTORY_FORMAT)
    throw invalid(`format is ${JSON.stringify(doc.format)}, expected "${HISTORY_FORMAT}"`)
  if (doc.version !== HISTORY_VERSION)
    throw invalid(
      `version ${JSON.stringify(doc.version)} is not one this Cairn reads (${HISTORY_VERSION})`,
    )
  if (doc.payloads !== 'codec') throw invalid('payloads must be "codec"')
  checkRun(doc.run)
  if (!Array.isArray(doc.checkpoints)) throw invalid('checkpoints must be an array')
  doc.checkpoints.forEach((record, index) => checkCheckpoint(record, index))
  return doc as RecordedHistory
}

function checkRun(run: unknown): asserts run is RecordedRun {
  if (typeof run !== 'object' || run === null) throw invalid('run must be an object')
  const r = run as Record<string, unknown>
  for (const key of ['id', 'workflow', 'version', 'input'])
    if (typeof r[key] !== 'string') throw invalid(`run.${key} must be a string`)
  if (!Number.isSafeInteger(r.createdAt)) throw invalid('run.createdAt must be an integer')
}

const CHECKPOINT_STATUSES: ReadonlySet<unknown> = new Set([
  'completed',
  'failed',
  'retrying',
  'waiting',
])

function checkCheckpoint(record: unknown, index: number): void {
  const at = `checkpoints[${index}]`
  if (typeof record !== 'object' || record === null) throw invalid(`${at} must be an object`)
  const r = record as Record<string, unknown>
  if (!Number.isSafeInteger(r.seq) || (r.seq as number) < 0)
    throw invalid(`${at}.seq must be a position (an integer ≥ 0)`)
  if (typeof r.name !== 'string' || typeof r.kind !== 'string')
    throw invalid(`${at} must have a string name and kind`)
  if (!CHECKPOINT_STATUSES.has(r.status))
    throw invalid(`${at}.status ${JSON.stringify(r.status)} is not a checkpoint status`)
  if (r.order !== null && !Number.isSafeInteger(r.order))
    throw invalid(`${at}.order must be an integer or null`)
}

function invalid(problem: string): InvalidArgumentError {
  return new InvalidArgumentError(`not a recorded history: ${problem}`)
}
