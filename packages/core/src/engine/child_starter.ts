/**
 * Starting a child run for `ctx.child` / `ctx.startChild`: the newest registered version of the
 * workflow (or the asked one), created unclaimed with a link to its parent's waiting position,
 * idempotently by child run id — a parent replayed after a crash finds its child and carries on.
 * A child that cannot start (unknown workflow, input the codec refuses, the id taken by another
 * run) is reported, and the parent's wait fails with that reason.
 */
import { validated } from '../schema/validate.ts'
import { redeliverEndedChild } from './child_outcome_redelivery.ts'
import type { RunRecord } from '../contracts/records.ts'
import type { NewRun } from '../contracts/state_store.ts'
import { RunIdConflictError } from '../errors/index.ts'
import { assertCallerRunId } from '../execution/continue_as_new.ts'
import type { Committer } from './committer.ts'
import type { EventHub } from './events.ts'
import type { ResolvedEngineOptions } from './options.ts'
import type { WorkflowRegistry } from './registry.ts'
import type { Admission } from '../contracts/state_store.ts'
import { admissionOf, singletonFull } from './admission_of.ts'
import { DEFAULT_PRIORITY } from '../store/run_priority.ts'

export interface ChildRequest {
  parent: { runId: string; seq: number }
  childRunId: string
  workflow: string
  version?: string | number
  input: unknown
  /** The child's claim priority (given, else its parent's). */
  priority: number
}

export type ChildStart = { ok: true } | { ok: false; error: unknown }

export interface ChildStarterDeps {
  options: ResolvedEngineOptions
  registry: WorkflowRegistry
  committer: Committer
  events: EventHub
  /** Something became claimable at `at`: poll then (this engine may run the child itself). */
  wake(at: number): void
}

export async function startChildRun(
  deps: ChildStarterDeps,
  request: ChildRequest,
): Promise<ChildStart> {
  let run: NewRun & { parent: { runId: string; seq: number } }
  let admission: Admission | undefined
  try {
    assertCallerRunId(request.childRunId, 'childId')
    const workflow = deps.registry.resolve(request.workflow, request.version)
    const input = await validated(
      workflow.options.inputSchema,
      request.input,
      `input of child workflow "${workflow.name}"`,
      { workflow: workflow.name },
    )
    run = {
      id: request.childRunId,
      workflow: workflow.name,
      version: workflow.version,
      input: deps.options.codec.encode(input, `input of child workflow "${workflow.name}"`),
      createdAt: deps.options.clock.now(),
      parent: request.parent,
      ...(request.priority === DEFAULT_PRIORITY ? {} : { priority: request.priority }),
      // A child runs in its workflow's queue, if it has one (a queue this engine lacks parks it).
      ...(workflow.options.queue === undefined ? {} : { queue: workflow.options.queue }),
    }
    admission = admissionOf(workflow, run.input, deps.options.codec, run.id)
  } catch (error) {
    // A replay that asks again for a child it started: the child is there, whatever its input
    // makes of the schema now (a schema changed by a deploy, a rule that reads the world).
    const existing = await existingChild(deps, request).catch(() => null)
    if (existing === null) return { ok: false, error }
    await redeliverEndedChild(deps, existing, request.parent)
    return { ok: true }
  }
  // An engine write (retried through a store outage), not a caller's: the parent's turn waits.
  const result = await deps.committer.enqueue({ type: 'createRun', run, admission })
  // Refused by its singleton key: the child call fails, recorded like any child failure.
  if (result.status === 'full')
    return { ok: false, error: singletonFull(run.workflow, admission as Admission, result) }
  if (result.status === 'applied') {
    // A child is a run started like any other (metrics count starts against endings); a
    // replayed parent finds it `exists` and says nothing. (A create whose acknowledgement was
    // lost and whose retry finds it `exists` is not announced: rare, and better than twice.)
    if (deps.events.wants('run:started'))
      deps.events.emit('run:started', {
        runId: run.id,
        workflow: run.workflow,
        version: run.version,
      })
    deps.wake(run.createdAt)
    return { ok: true }
  }
  if (result.status === 'exists' && isSameChild(result.run, run)) {
    await redeliverEndedChild(deps, result.run, request.parent)
    return { ok: true }
  }
  const other = result.status === 'exists' ? result.run : null
  return {
    ok: false,
    error: new RunIdConflictError(
      `child run id "${run.id}" is already used by another run${other === null ? '' : ` (workflow "${other.workflow}")`}`,
      { details: { runId: run.id } },
    ),
  }
}

/**
 * The same call: the child of this parent's position, of this workflow. Its input is not
 * compared — the parent link names the call, and a replay may compute the input anew (an
 * inputSchema's value, a changed deploy) where the stored one is what the child ran with.
 */
function isSameChild(
  existing: RunRecord,
  wanted: { workflow: string; parent: { runId: string; seq: number } },
): boolean {
  return (
    existing.workflow === wanted.workflow &&
    existing.parentRunId === wanted.parent.runId &&
    existing.parentSeq === wanted.parent.seq
  )
}

/** The child this request names, when it exists as the same call; else null. */
async function existingChild(
  deps: ChildStarterDeps,
  request: ChildRequest,
): Promise<RunRecord | null> {
  const run = await deps.options.store.getRun(request.childRunId)
  const wanted = { workflow: request.workflow, parent: request.parent }
  return run !== null && isSameChild(run, wanted) ? run : null
}
