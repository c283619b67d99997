/**
 * Class-based workflows for AdonisJS apps. A workflow is a class in `app/workflows` that
 * extends BaseWorkflow, declares `static workflow = { name, version }` and implements
 * `run(ctx, input)`. The provider registers each one at boot; `dispatch` starts a run and
 * `start` starts one and waits for its result, with the input and output types of `run`.
 */
import {
  currentWorkflowContext,
  deserializeError,
  InvalidArgumentError,
  type ChildOptions,
  type DeadLetter,
  type Engine,
  type StartOptions,
  type WorkflowContext,
  type WorkflowOptions,
} from '@cairn/core'
import { boundEngine } from './bound_engine.ts'

/** What a workflow class declares about itself; the rest are the engine's workflow options. */
export interface WorkflowDefinition extends WorkflowOptions {
  /** The durable name runs are stored under. Renaming it orphans in-flight runs. */
  name: string
  /** Runs execute only the version they started on; keep old versions' classes while their runs are in flight. */
  version: string | number
}

/** A concrete workflow class (the constructor BaseWorkflow's statics are called on). */
export interface WorkflowClass<
  W extends BaseWorkflow<never, unknown> = BaseWorkflow<never, unknown>,
> {
  new (...args: never[]): W
  workflow: WorkflowDefinition
}

/** The input type of a workflow class's `run`. */
export type WorkflowInput<W extends BaseWorkflow<never, unknown>> = Parameters<W['run']>[1]
/** The output type of a workflow class's `run`. */
export type WorkflowOutput<W extends BaseWorkflow<never, unknown>> = Awaited<ReturnType<W['run']>>

export interface DispatchedRun {
  runId: string
  /** True when a run with this `runId` already existed (dispatch is idempotent by run id). */
  existing: boolean
}

export interface StartAndWaitOptions extends StartOptions {
  /** Stop waiting after this long (E_WAIT_TIMEOUT; the run goes on). Default: wait until it ends. */
  timeoutMs?: number
}

export abstract class BaseWorkflow<Input = unknown, Output = unknown> {
  // Each subclass declares `static workflow = { name: 'order', version: 1 }`. It is not
  // declared here, so a class without it fails to compile where it is dispatched (WorkflowClass).

  /** The workflow body: deterministic code that does its work through `ctx`. */
  abstract run(ctx: WorkflowContext, input: Input): Promise<Output>

  /**
   * Optional: this workflow's own dead-letter handler, a workflow body of its own (registered
   * as `<name>.dlq`), started as `dlq:<runId>` when a run ends `dead` or `failed`
   * (docs/dead-letters.md). Declaring it beside `static workflow = { deadLetterWorkflow }`
   * fails boot.
   */
  deadLetter?(ctx: WorkflowContext, dead: DeadLetter): Promise<unknown>

  /**
   * Starts a run of this workflow (the version this class declares) and returns its id. Called
   * from a workflow body, it starts a child run (`ctx.startChild`, recorded at its position;
   * `runId` is the child's id) and does not wait for it.
   */
  static async dispatch<W extends BaseWorkflow<never, unknown>>(
    this: WorkflowClass<W>,
    input: WorkflowInput<W>,
    options: StartOptions = {},
  ): Promise<DispatchedRun> {
    const { name, version } = workflowDefinition(this)
    const parent = currentWorkflowContext()
    if (parent !== undefined) {
      const child = parent.startChild(name, input, childOptions(version, options))
      return { runId: child.runId, existing: false }
    }
    return boundEngine().start(name, input, { version, ...options })
  }

  /**
   * Starts a run and waits for it to end: resolves with its output, or rejects with the
   * error it failed with (rebuilt: name, message, code) or was cancelled with. Some process
   * must drive runs (`drive: true`, or a worker) or this waits until `timeoutMs`.
   *
   * Called from a workflow body, it runs a child run and waits for it (`ctx.child`, recorded
   * at its position: replay returns its recorded outcome); `runId` is the child's id. A child
   * has no wait timeout of its own (`timeoutMs` is refused there): race it with `ctx.sleep`.
   */
  static async start<W extends BaseWorkflow<never, unknown>>(
    this: WorkflowClass<W>,
    input: WorkflowInput<W>,
    options: StartAndWaitOptions = {},
  ): Promise<WorkflowOutput<W>> {
    const { timeoutMs, ...startOptions } = options
    const { name, version } = workflowDefinition(this)
    const parent = currentWorkflowContext()
    if (parent !== undefined) {
      if (timeoutMs !== undefined) {
        throw new InvalidArgumentError(
          `${this.name}.start inside a workflow runs a child run: timeoutMs does not apply (race it with ctx.sleep)`,
        )
      }
      return parent.child<WorkflowOutput<W>>(name, input, childOptions(version, startOptions))
    }
    const engine: Engine = boundEngine()
    const { runId } = await engine.start(name, input, { version, ...startOptions })
    const outcome = await engine.waitForRun<WorkflowOutput<W>>(
      runId,
      timeoutMs === undefined ? {} : { timeoutMs },
    )
    if (outcome.status === 'completed') return outcome.output
    throw deserializeError(outcome.error)
  }
}

/** What dispatch/start take inside a workflow; `tags` is refused there with its own message. */
const CHILD_START_OPTIONS: ReadonlySet<string> = new Set(['runId', 'version', 'tags', 'priority'])

/** A child's options from dispatch/start's: the caller's run id becomes the child's id. */
function childOptions(version: string | number, options: StartOptions): ChildOptions {
  // Outside a workflow engine.start checks the options; here only these are read, so any
  // other key (a misspelling, an @adonis-agora/durable `namespace`) is refused, not dropped.
  const unknown = Object.keys(options).find((key) => !CHILD_START_OPTIONS.has(key))
  if (unknown !== undefined) {
    throw new InvalidArgumentError(
      `a workflow started inside a workflow is a child run: unknown option ${JSON.stringify(unknown)} (a child run takes runId, version and priority)`,
      { details: { option: unknown, call: 'child run' } },
    )
  }
  // Refused rather than dropped: a child run carries no tags (only engine.start sets them).
  if (options.tags !== undefined) {
    throw new InvalidArgumentError('tags apply to top-level runs: a child run has none')
  }
  return {
    version: options.version ?? version,
    ...(options.runId === undefined ? {} : { childId: options.runId }),
    ...(options.priority === undefined ? {} : { priority: options.priority }),
  }
}

/** The class's `static workflow`, checked; `where` names the file in errors. */
export function workflowDefinition(workflow: WorkflowClass, where?: string): WorkflowDefinition {
  const definition = Object.hasOwn(workflow, 'workflow') ? workflow.workflow : undefined
  const at = where === undefined ? workflow.name : `${workflow.name} (${where})`
  if (definition === null || typeof definition !== 'object') {
    throw new InvalidArgumentError(`${at} must declare static workflow = { name, version }`)
  }
  if (typeof definition.name !== 'string' || definition.name === '') {
    throw new InvalidArgumentError(`${at}: static workflow.name must be a non-empty string`)
  }
  if (typeof definition.version !== 'string' && typeof definition.version !== 'number') {
    throw new InvalidArgumentError(`${at}: static workflow.version must be a string or a number`)
  }
  return definition
}
