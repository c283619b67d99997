/**
 * `engine.start`: create a run, idempotently by run id (I9, P1, P2). Same id and same
 * workflow and input returns the existing run; a different workflow or input is a clear
 * error. When this engine drives runs and has a free slot, the run is created already leased
 * and starts executing here with no second write and no poll.
 */
import { validated } from '../schema/validate.ts'
import type { RunRecord } from '../contracts/records.ts'
import type { Admission } from '../contracts/state_store.ts'
import { admissionOf, singletonFull } from './admission_of.ts'
import {
  InvalidArgumentError,
  QueueNotRegisteredError,
  RunIdConflictError,
} from '../errors/index.ts'
import { checkTags } from '../store/create_check.ts'
import { checkPriority, DEFAULT_PRIORITY } from '../store/run_priority.ts'
import { checkQueueName } from '../store/queue_check.ts'
import { checkOptionKeys } from '../util/known_keys.ts'
import { newRunId } from '../util/run_id.ts'
import { assertCallerRunId } from '../execution/continue_as_new.ts'
import type { Committer } from './committer.ts'
import type { Driver } from './driver.ts'
import type { EventHub } from './events.ts'
import type { ResolvedEngineOptions } from './options.ts'
import { START_OPTIONS } from './option_specs.ts'
import type { QueueRegistry } from './queue_registry.ts'
import type { WorkflowRegistry } from './registry.ts'

export interface StartOptions {
  /** Idempotency key: starting again with the same id returns the same run. Default: a new UUIDv7. */
  runId?: string
  /** Start this version instead of the newest registered one. */
  version?: string | number
  /**
   * Labels for finding the run later (`listRuns({ tag })`), fixed for its life: at most 20,
   * each 1..64 characters without control characters, no duplicates (E_INVALID_ARGUMENT).
   */
  tags?: readonly string[]
  /**
   * Claim priority, -1000 to 1000: among runs due, higher ones are claimed first
   * (docs/flow-control.md "Run priority"). Default: the workflow's `priority`, else 0.
   */
  priority?: number
  /**
   * The named queue the run executes in: it holds one of the queue's slots from before its
   * first step until it ends (docs/flow-control.md "Whole runs on a queue"). Default: the
   * workflow's `queue`, else none. A queue this engine has not registered is
   * E_QUEUE_NOT_REGISTERED, and nothing is created.
   */
  queue?: string
}

export interface StartedRun {
  runId: string
  /** True when the run already existed (an idempotent retry). */
  existing: boolean
  /**
   * True when the new run waits for a slot of its singleton key (status `queued`): it starts
   * when one frees, in start order. Absent otherwise.
   */
  queued?: boolean
}

export interface StarterDeps {
  options: ResolvedEngineOptions
  registry: WorkflowRegistry
  committer: Committer
  driver: Driver
  events: EventHub
  queues: Pick<QueueRegistry, 'find'>
}

export async function startRun(
  deps: StarterDeps,
  name: string,
  input: unknown,
  opts: StartOptions = {},
): Promise<StartedRun> {
  checkStartOptions(name, opts)
  const workflow = deps.registry.resolve(name, opts.version)
  const runId = opts.runId ?? newRunId()
  if (opts.runId !== undefined) assertCallerRunId(runId, 'runId')
  const tags = opts.tags === undefined ? undefined : [...checkTags(opts.tags, 'start')]
  const priority = startPriority(opts.priority, workflow.options.priority, name)
  // null is not "none": a start cannot leave its workflow's queue, and a typo'd null says so.
  const queue = startQueue(
    deps,
    opts.queue === undefined ? workflow.options.queue : opts.queue,
    workflow.name,
  )
  const resubmitted = await resubmitOf(deps, workflow, input, opts.runId)
  if (resubmitted !== null) return resubmitted
  const checked = await validated(
    workflow.options.inputSchema,
    input,
    `input of workflow "${workflow.name}"`,
    { workflow: workflow.name },
  )
  const encoded = deps.options.codec.encode(checked, `input of workflow "${name}"`)
  const createdAt = deps.options.clock.now()
  const run = {
    id: runId,
    workflow: workflow.name,
    version: workflow.version,
    input: encoded,
    createdAt,
    ...(tags !== undefined && tags.length > 0 ? { tags } : {}),
    ...(priority === DEFAULT_PRIORITY ? {} : { priority }),
    ...(queue === null ? {} : { queue }),
  }
  const admission = admissionOf(workflow, encoded, deps.options.codec, runId)
  const claimed = deps.driver.tryReserve(runId)
  const claim = claimed
    ? { owner: deps.options.instanceId, leaseMs: deps.options.leaseMs }
    : undefined
  // The lease a create-with-claim grants counts from no earlier than this (turn_lease.ts).
  const sentAt = deps.options.monotonic()
  let result
  try {
    result = await deps.committer.enqueue({ type: 'createRun', run, claim, admission }, true)
  } catch (error) {
    if (claimed) deps.driver.unreserve(runId)
    throw error
  }
  if (result.status === 'exists') {
    if (claimed) deps.driver.unreserve(runId)
    const existing = sameRunOrConflict(result.run, run)
    deps.driver.adoptOrphan(result.run)
    // A resubmit of a run still waiting for its key's slot says so, as the first start did.
    return result.run.status === 'queued' ? { ...existing, queued: true } : existing
  }
  if (result.status === 'full') {
    if (claimed) deps.driver.unreserve(runId)
    throw singletonFull(workflow.name, admission as Admission, result)
  }
  if (deps.events.wants('run:started')) {
    deps.events.emit('run:started', { runId, workflow: workflow.name, version: workflow.version })
  }
  // A queued run took no lease: it waits for a slot, promoted by the write that frees one.
  const queued = result.status === 'applied' && result.queued === true
  if (queued) {
    if (claimed) deps.driver.unreserve(runId)
    return { runId, existing: false, queued: true }
  }
  const held = admission === undefined ? null : { scope: admission.scope, key: admission.key }
  if (claimed)
    deps.driver.runReserved({
      ...run,
      epoch: 1,
      inboxSeq: 0,
      leaseGrantedAt: sentAt,
      admission: held,
      priority,
      queue,
    })
  else deps.driver.wake(createdAt)
  return { runId, existing: false }
}

/**
 * A resubmit of a start an inputSchema already let in: the run under the caller's id, when it
 * stores exactly this input (the schema changed nothing) — answered before the schema runs
 * again, so a rule that reads the world (a uniqueness check the run's own work now fails)
 * cannot refuse a start that was accepted. Only with a schema and a caller's id: otherwise
 * the create's own `exists` answer costs no extra read.
 */
async function resubmitOf(
  deps: StarterDeps,
  workflow: { name: string; options: { inputSchema?: unknown } },
  input: unknown,
  runId: string | undefined,
): Promise<StartedRun | null> {
  if (workflow.options.inputSchema === undefined || runId === undefined) return null
  const existing = await deps.options.store.getRun(runId)
  if (existing === null || existing.workflow !== workflow.name) return null
  const raw = deps.options.codec.encode(input, `input of workflow "${workflow.name}"`)
  if (raw !== existing.input) return null
  deps.driver.adoptOrphan(existing)
  return existing.status === 'queued'
    ? { runId: existing.id, existing: true, queued: true }
    : { runId: existing.id, existing: true }
}

/** A start's priority: its own, else its workflow's, else 0; refused unless -1000..1000. */
function startPriority(given: unknown, workflows: number | undefined, name: string): number {
  if (given === undefined) return workflows ?? DEFAULT_PRIORITY
  return checkPriority(given, `engine.start("${name}")`)
}

/**
 * A start's queue: well formed and registered on this engine (a run started on a queue no
 * engine of this deploy knows would only park), else null for none.
 */
function startQueue(deps: StarterDeps, queue: unknown, workflow: string): string | null {
  if (queue === undefined) return null
  const where = `engine.start("${workflow}")`
  checkQueueName(queue, where)
  if (deps.queues.find(queue as string) === undefined)
    throw new QueueNotRegisteredError(
      `${where}: queue ${JSON.stringify(queue)} is not registered on this engine; register it with engine.registerQueue (or EngineOptions.queues) first`,
      { details: { workflow, queue } },
    )
  return queue as string
}

/** Before anything is read or written: a run is never created from options it would ignore. */
export function checkStartOptions(name: string, opts: unknown): void {
  // @adonis-agora/durable's signature is start(name, input, runId, options).
  if (typeof opts === 'string')
    throw new InvalidArgumentError(
      `engine.start("${name}"): the run id goes in the options: start(name, input, { runId })`,
      { details: { call: 'engine.start', workflow: name } },
    )
  checkOptionKeys(opts, START_OPTIONS, `engine.start("${name}")`, { workflow: name })
}

/** An existing run with this id: the same run (an idempotent retry), or a clear conflict. */
export function sameRunOrConflict(
  existing: RunRecord,
  wanted: { workflow: string; input: string },
): StartedRun {
  if (existing.workflow === wanted.workflow && existing.input === wanted.input) {
    return { runId: existing.id, existing: true }
  }
  const what =
    existing.workflow !== wanted.workflow ? `workflow "${existing.workflow}"` : 'a different input'
  throw new RunIdConflictError(`run id "${existing.id}" is already used by a run with ${what}`, {
    details: { runId: existing.id, workflow: existing.workflow },
  })
}
