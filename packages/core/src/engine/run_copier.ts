/**
 * The operator's two ways to make a new run from an old one (docs/retry-and-fork.md):
 *
 * - `retryWithInput`: a fresh run of the source's workflow and version with another input,
 *   nothing copied.
 * - `fork`: a run of the same workflow and version, seeded with the source's delivered
 *   outcomes (completed/failed, `order` set) at positions below `fromSeq`: replay hands those
 *   back without running anything, and execution goes live from the first position without
 *   one. Undelivered rows (a sleep or signal wait still open, a step between retries) are not
 *   copied: they run again.
 *
 * Why a fork replays correctly: positions are taken in call order, so every position below
 * `fromSeq` was called before any position at or above it, and the outcomes that led the body
 * to call it were of lower positions, all copied when delivered. Copied outcomes keep their
 * source `order`, so replay delivers them in the interleaving the source saw; the new run's
 * own outcomes are numbered after the highest copied order (turn.ts: next order = highest
 * recorded + 1), so every one of them comes after every copied one. An outcome below
 * `fromSeq` that the source delivered after an outcome at or above it (parallel branches) is
 * copied too: it is delivered before the re-run branch's new outcome, one interleaving the
 * source could have had.
 *
 * Neither needs the workflow registered here: the run is created unclaimed, and an engine that
 * has its workflow version drives it (this one too, at once, when it drives runs and has it).
 * The new run is top-level (no parent: a child's copy does not report to the parent), keeps
 * the source's tags, and records where it came from (`origin`).
 */
import { validated } from '../schema/validate.ts'
import { timelineRecords } from './views.ts'
import type { CheckpointRecord, RunOrigin, RunRecord } from '../contracts/records.ts'
import { DEFAULT_PRIORITY } from '../store/run_priority.ts'
import type { Admission, CreateRunOp, NewRun } from '../contracts/state_store.ts'
import { admissionOf, singletonFull } from './admission_of.ts'
import type { WorkflowRegistry } from './registry.ts'
import { InvalidArgumentError, RunIdConflictError, RunNotFoundError } from '../errors/index.ts'
import { assertCallerRunId } from '../execution/continue_as_new.ts'
import { newRunId } from '../util/run_id.ts'
import type { Committer } from './committer.ts'
import type { Driver } from './driver.ts'
import type { EventHub } from './events.ts'
import type { ResolvedEngineOptions } from './options.ts'
import { sameRunOrConflict, type StartedRun } from './run_starter.ts'

export interface CopierDeps {
  options: ResolvedEngineOptions
  committer: Committer
  driver: Driver
  events: EventHub
  /** The copy's workflow version, when registered here: its singleton admission applies. */
  registry: WorkflowRegistry
}

export interface RetryWithInputOptions {
  /** The new run's id (idempotency key, as for `start`). Default: a new UUIDv7. */
  runId?: string
}

export interface ForkOptions {
  /** First position that runs again: outcomes at positions below it are reused. */
  fromSeq: number
  /** The new run's input. Default: the source's input, exactly as stored. */
  input?: unknown
  /** The new run's id (idempotency key, as for `start`). Default: a new UUIDv7. */
  runId?: string
}

export async function retryWithInput(
  deps: CopierDeps,
  sourceId: string,
  input: unknown,
  options: RetryWithInputOptions = {},
): Promise<StartedRun> {
  const source = await readSource(deps, sourceId)
  const encoded = await encodeInput(deps, source, input)
  const origin: RunOrigin = { kind: 'retry', runId: source.id, fromSeq: null }
  return createCopy(deps, source, encoded, origin, options.runId, [])
}

export async function fork(
  deps: CopierDeps,
  sourceId: string,
  options: ForkOptions,
): Promise<StartedRun> {
  if (options === null || typeof options !== 'object') {
    throw new InvalidArgumentError('fork: options { fromSeq } are required')
  }
  const source = await readSource(deps, sourceId)
  const records = await deps.options.store.loadCheckpoints(source.id)
  const fromSeq = checkFromSeq(options.fromSeq, records, source.id)
  const encoded =
    options.input === undefined ? source.input : await encodeInput(deps, source, options.input)
  const origin: RunOrigin = { kind: 'fork', runId: source.id, fromSeq }
  return createCopy(deps, source, encoded, origin, options.runId, reusable(records, fromSeq))
}

/** The source's delivered outcomes below `fromSeq`: what the fork replays instead of running. */
export function reusable(
  records: readonly CheckpointRecord[],
  fromSeq: number,
): CheckpointRecord[] {
  return records.filter(
    (r) =>
      r.seq < fromSeq && r.order !== null && (r.status === 'completed' || r.status === 'failed'),
  )
}

/** An integer from 0 to the number of positions the source took (then only its end re-runs). */
function checkFromSeq(
  fromSeq: unknown,
  records: readonly CheckpointRecord[],
  runId: string,
): number {
  // The positions of the body: a run's queue slot (RUN_SLOT_SEQ) is none of them.
  const positions = timelineRecords(records).reduce((most, r) => Math.max(most, r.seq + 1), 0)
  if (
    Number.isSafeInteger(fromSeq) &&
    (fromSeq as number) >= 0 &&
    (fromSeq as number) <= positions
  ) {
    return fromSeq as number
  }
  throw new InvalidArgumentError(
    `fork: fromSeq must be an integer from 0 to ${positions} (the positions run "${runId}" took), got ${String(fromSeq)}`,
    { details: { runId, fromSeq: String(fromSeq), positions } },
  )
}

async function readSource(deps: CopierDeps, runId: string): Promise<RunRecord> {
  if (typeof runId !== 'string' || runId === '') {
    throw new InvalidArgumentError('runId must be a non-empty string')
  }
  const source = await deps.options.store.getRun(runId)
  if (source === null) {
    throw new RunNotFoundError(`no run with id "${runId}"`, { details: { runId } })
  }
  return source
}

/** A new input for a copy: through its workflow's inputSchema when registered here, encoded. */
async function encodeInput(deps: CopierDeps, source: RunRecord, input: unknown): Promise<string> {
  const schema = deps.registry.find(source.workflow, source.version)?.options.inputSchema
  const subject = `input of workflow "${source.workflow}"`
  const checked = await validated(schema, input, subject, { workflow: source.workflow })
  return deps.options.codec.encode(checked, subject)
}

async function createCopy(
  deps: CopierDeps,
  source: RunRecord,
  input: string,
  origin: RunOrigin,
  wantedId: string | undefined,
  outcomes: readonly CheckpointRecord[],
): Promise<StartedRun> {
  if (wantedId !== undefined) assertCallerRunId(wantedId, 'runId')
  const id = wantedId ?? newRunId()
  const createdAt = deps.options.clock.now()
  const run: NewRun = {
    id,
    workflow: source.workflow,
    version: source.version,
    input,
    createdAt,
    origin,
    ...(source.tags.length > 0 ? { tags: source.tags } : {}),
    // A copy is the same work again: it keeps the source's place in the claim order.
    ...(source.priority === DEFAULT_PRIORITY ? {} : { priority: source.priority }),
    // And in the same queue (its turns ask for a slot of their own).
    ...(source.queue === null ? {} : { queue: source.queue }),
  }
  const seed = outcomes.map((record) => ({ ...record, runId: id }))
  const admission = copyAdmission(deps, source, input, id)
  const op: CreateRunOp = {
    type: 'createRun',
    run,
    ...(seed.length > 0 ? { seed } : {}),
    ...(admission === undefined ? {} : { admission }),
  }
  const result = await deps.committer.enqueue(op, true)
  if (result.status === 'exists') return sameCopyOrConflict(result.run, run, origin)
  if (result.status === 'full') throw singletonFull(run.workflow, admission as Admission, result)
  if (deps.events.wants('run:started')) {
    deps.events.emit('run:started', { runId: id, workflow: run.workflow, version: run.version })
  }
  if (result.status === 'applied' && result.queued === true)
    return { runId: id, existing: false, queued: true }
  // Unclaimed: whichever engine has this workflow version takes it (this one, now, if so).
  deps.driver.wake(createdAt)
  return { runId: id, existing: false }
}

/**
 * A copy is a new run of its workflow: it takes a slot of its key like a start, by the
 * singleton options of the source's version — or of the newest registered one, when this
 * engine runs another. A source admitted under a key whose workflow this engine does not
 * register at all cannot be copied here: its key and limit are unknown (never a copy that
 * escapes the bound).
 */
function copyAdmission(
  deps: CopierDeps,
  source: RunRecord,
  input: string,
  id: string,
): Admission | undefined {
  const registered =
    deps.registry.find(source.workflow, source.version) ?? deps.registry.newest(source.workflow)
  if (registered !== undefined) return admissionOf(registered, input, deps.options.codec, id)
  if (source.admission === null) return undefined
  throw new InvalidArgumentError(
    `run "${source.id}" was admitted under singleton key ${JSON.stringify(source.admission.key)} of workflow "${source.workflow}", which this engine does not register: copy it from an engine that does`,
    { details: { runId: source.id, workflow: source.workflow } },
  )
}

/**
 * An existing run with the wanted id is this copy again (an idempotent retry) only if it was
 * made the same way: same workflow and input, and the same origin — a fork from another
 * position, or a plain start, with that id is a conflict, not this copy.
 */
function sameCopyOrConflict(existing: RunRecord, wanted: NewRun, origin: RunOrigin): StartedRun {
  const same = sameRunOrConflict(existing, wanted)
  const had = existing.origin
  if (had?.kind === origin.kind && had.runId === origin.runId && had.fromSeq === origin.fromSeq)
    return same
  throw new RunIdConflictError(
    `run id "${existing.id}" is already used by a run made ${describeOrigin(had)}`,
    { details: { runId: existing.id, workflow: existing.workflow } },
  )
}

function describeOrigin(origin: RunOrigin | null): string {
  if (origin === null) return 'by a start'
  if (origin.kind === 'retry') return `as a retry of "${origin.runId}"`
  return `as a fork of "${origin.runId}" from position ${origin.fromSeq}`
}
