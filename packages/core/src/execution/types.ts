/**
 * The workflow author's API: the context a workflow body receives and the options of its
 * primitives. Types only.
 */
import type { SearchAttributeUpsert } from '../contracts/search_attributes.ts'
import type { StepSchemas } from '../schema/step_schemas.ts'
import type { StandardSchemaV1 } from '../contracts/standard_schema.ts'
import type { TransactionHandle } from '../contracts/transactions.ts'
import type { Duration } from '../util/duration.ts'
import type { ScheduleSpec } from '../engine/schedule_spec.ts'

/** What a step's function (local) or handler (registered) receives. */
export interface StepContext {
  readonly runId: string
  readonly stepName: string
  /** The step's position in the run: the same on every attempt, replay and crash recovery. */
  readonly seq: number
  /**
   * `<runId>/<seq>`: unique to this step of this run and the same on every attempt. Pass it to
   * an external API's idempotency key so a retried or re-run attempt does not act twice.
   */
  readonly idempotencyKey: string
  /** 1 for the first attempt, 2 for the first retry, … (counted durably across crashes). */
  readonly attempt: number
  /** Aborted when the step times out, the run is cancelled or this engine loses the lease. */
  readonly signal: AbortSignal
  /**
   * Lines recorded with the step (docs/step-logs.md): shown under it in the dashboard, kept
   * across attempts (at most `stepLogs.maxEntries`, oldest dropped and counted), span events
   * of the attempt's trace. `fields` go through the codec. Never throws.
   */
  readonly log: StepLogger
  /**
   * Report how far the step is: a fraction in [0, 1], or `{ done, total }` (finite, >= 0).
   * The newest report is kept with the step and shown live. E_INVALID_ARGUMENT otherwise.
   */
  progress(value: StepProgress): void
}

/** `stepCtx.log` (and `currentStep()?.log`). */
export interface StepLogger {
  info(message: string, fields?: Record<string, unknown>): void
  warn(message: string, fields?: Record<string, unknown>): void
  error(message: string, fields?: Record<string, unknown>): void
}

/** What `stepCtx.progress` takes: a fraction in [0, 1], or counts. */
export type StepProgress = number | { done: number; total: number }

export type StepFn<T> = (step: StepContext) => T | Promise<T>

/**
 * What `ctx.transaction` runs: `trx` is the open database transaction to write through (a Knex
 * transaction, or with @cairn/adonis a Lucid TransactionClient: contracts/transactions.ts).
 */
export type TransactionFn<T, H = TransactionHandle> = (trx: H, step: StepContext) => T | Promise<T>

export interface BackoffOptions {
  /** `exponential` (default) multiplies the delay by `factor` after each failed attempt. */
  type?: 'fixed' | 'exponential'
  /** First retry delay. Default 1s. */
  delay?: Duration
  /** Growth per attempt for exponential backoff. Default 2. */
  factor?: number
  /** Cap on any one delay. Default 5m. */
  maxDelay?: Duration
  /** Random spread in [0, 1]: a delay d becomes d × (1 − jitter × random). Default 0.2. */
  jitter?: number
}

export interface RetryOptions {
  /** Retries after the first attempt (so `retries: 3` makes at most 4 attempts). Default 3. */
  retries?: number
  backoff?: BackoffOptions
}

export interface LocalStepOptions<T = unknown> extends RetryOptions {
  /** Per-attempt time limit; the attempt's signal is aborted and it counts as a failure. */
  timeoutMs?: number
  /**
   * Saga: how to undo this step once it has succeeded. If the workflow later fails, the
   * compensations of its completed steps run in reverse order of completion, each a recorded
   * step (`compensate:<name>`, retried like any step), so a crash while unwinding never runs a
   * finished compensation again. Receives the step's result.
   */
  compensate?: (result: T) => unknown
}

/**
 * Where a registered step runs: in the engine's process (no `transport`), or on the worker fleet
 * behind the engine transport of this name (EngineOptions.transports; docs/design/remote_steps.md).
 */
export interface StepPlacement {
  transport?: string
  /**
   * Capabilities a worker must offer to take this step's tasks (`createWorker({ capabilities })`,
   * `durable:worker --capabilities`): a worker lacking one never receives them. Needs a
   * `transport`. Default none.
   */
  requires?: readonly string[]
  /**
   * How long an attempt's task may wait for a worker to pick it up (ms). Past it, a task no
   * worker has received is taken back from the transport and the attempt fails with
   * E_PICKUP_TIMEOUT (retried by the step's policy, as a new attempt with a new window); a
   * task a worker has received goes on. Needs a `transport`. Default: no limit.
   */
  pickupTimeoutMs?: number
}

/**
 * A named queue bounding a step (docs/flow-control.md "Queues"): each attempt takes one of the
 * queue's slots, shared by every run on every engine of the store, and gives it back when its
 * outcome is recorded.
 */
export interface StepQueueing {
  /** The queue (`engine.registerQueue`, EngineOptions.queues). Default: none (no slot taken). */
  queue?: string
  /** Within the queue, higher first: an integer −1000…1000. Default 0. Needs a `queue`. */
  priority?: number
  /**
   * Waiters of one priority are granted key by key, the key granted least recently first, so
   * one tenant's thousand waiting steps do not starve another's one. Default '' (one key).
   * At most 200 characters. Needs a `queue`.
   */
  fairnessKey?: string
}

/** The retry, timeout, placement and queue options a registered step declares (`engine.registerStep`). */
export type StepOptions = Omit<LocalStepOptions, 'compensate'> &
  StepPlacement &
  StepQueueing &
  StepSchemas

/** What `ctx.step` takes per call: a local step's options, the placement and the queue. */
export type StepCallOptions<T = unknown> = LocalStepOptions<T> & StepPlacement & StepQueueing

/**
 * A registered step's work: receives the step's input (as the codec decodes it, the form a
 * remote worker would receive) and returns its output, which is checkpointed.
 */
export type StepHandler<I = unknown, O = unknown> = (input: I, step: StepContext) => O | Promise<O>

/**
 * A typed handle on a registered step, made by `defineStep`: `engine.registerStep(ref)`
 * registers it, `ctx.step(ref, input)` calls it with its input and output types.
 */
export interface StepReference<I = unknown, O = unknown> {
  readonly name: string
  readonly handler: StepHandler<I, O>
  readonly options: StepOptions
}

export interface WorkflowContext {
  readonly runId: string
  readonly workflow: string
  readonly version: string
  /**
   * Run `fn` in this process and checkpoint its result; replay returns the recorded result
   * without running `fn` again. Retried per `options` unless it throws `FatalError`.
   */
  localStep<T>(name: string, fn: StepFn<T>, options?: LocalStepOptions<T>): Promise<T>
  /**
   * Call a registered step (`engine.registerStep`) with `input` and checkpoint its result;
   * replay returns the recorded result without calling the handler. Retried per the step's
   * registered options, overridden field by field by `options`. A step name this engine has
   * not registered parks the run (E_STEP_NOT_REGISTERED) until an engine that has it starts.
   */
  step<I, O>(step: StepReference<I, O>, input: I, options?: StepCallOptions<O>): Promise<O>
  step<O = unknown>(name: string, input: unknown, options?: StepCallOptions<O>): Promise<O>

  /**
   * Run `fn` inside a database transaction on the app's connection and commit its checkpoint
   * in that same transaction: its database writes happen exactly once. Replay returns the
   * recorded result without running `fn`. A throw rolls back and is retried per `options`
   * (like localStep); a lost lease rolls back. Needs a store sharing the app's connection
   * (KnexStore, stores.lucid), else fails with E_TRANSACTIONS_UNSUPPORTED. Keep `fn` to
   * database work: anything else it does is at-least-once, as in any step.
   */
  transaction<T, H = TransactionHandle>(
    name: string,
    fn: TransactionFn<T, H>,
    options?: RetryOptions,
  ): Promise<T>
  /**
   * Deterministic current time: the time at which the latest result this workflow received
   * was recorded (the run's creation time before any). Synchronous; `await` works too.
   */
  now(): Date
  /** Run a non-deterministic function once (a random id, a UUID) and record its value. */
  sideEffect<T>(fn: () => T | Promise<T>, name?: string): Promise<T>
  /**
   * True when this run executes code that includes the change `id`; false when the run
   * started before it (its history was recorded without the marker). Guards in-place edits.
   */
  patched(id: string): boolean
  /** Durable sleep: survives restarts, fires once, never early. */
  sleep(duration: Duration): Promise<void>
  /** Durable sleep until a point in time. */
  sleepUntil(until: Date | number): Promise<void>
  /**
   * Wait for the oldest signal sent to this run under `name` (`engine.signal({ runId, name },
   * payload)`) and return its payload. A signal sent earlier is kept until a wait takes it;
   * each signal is received by one wait, once, in the order signals were accepted. With
   * `timeoutMs`, throws SignalTimeoutError when none arrives in time.
   */
  waitForSignal<T = unknown>(name: string, options?: SignalWaitOptions): Promise<T>
  /**
   * Receive the first broadcast event `name` (engine.publishEvent) published after this call
   * whose payload matches `options.match`; events published earlier are never received. With
   * `timeoutMs`, throws EventTimeoutError when none arrives in time.
   */
  waitForEvent<T = unknown>(name: string, options?: EventWaitOptions): Promise<T>
  /**
   * Human in the loop: stop here (waiting, no lease held) until an operator calls
   * `engine.continue(runId)`; resolves with the operator's note, if any.
   */
  breakpoint<T = unknown>(label: string): Promise<T | undefined>
  /**
   * Publish a value under `key` for `engine.getEvent(runId, key)` to read: progress, a link,
   * the current stage. Recorded at its position; the latest call wins.
   */
  setEvent(key: string, value: unknown): Promise<void>
  /**
   * Set (a value) or remove (null) indexed attributes of this run, found with
   * `engine.listRuns({ searchAttributes })` and shown by getRun/listRuns. Values: strings (up
   * to 256 characters), finite numbers, booleans, Dates. Recorded at its position: replay
   * writes nothing again. Bad names or values, or a rejection by the workflow's
   * `searchAttributes` schema, throw E_INVALID_ARGUMENT and store nothing.
   */
  upsertSearchAttributes(attributes: SearchAttributeUpsert): Promise<void>
  /**
   * Run another workflow as a child and wait for its result. The child is a run of its own
   * (visible, with its own history), linked to this one; its outcome reaches this run once.
   * Throws ChildFailedError (E_CHILD_FAILED, `cause` = the child's error) if it fails, is
   * cancelled or cannot start. Cancelling this run cancels its children.
   */
  child<O = unknown>(workflow: string, input: unknown, options?: ChildOptions): Promise<O>
  /**
   * End this run and start its successor: the same workflow (newest registered version) on
   * `input`, with an empty history, linked both ways (`continuedTo` / `continuedFrom`). The
   * run ends `continued` at once — `return ctx.continueAsNew(next)` — and work still in flight
   * in other branches is abandoned. Signals it has not received move to the successor;
   * `waitForRun`, `cancel` and `signal` on any run of the chain reach the latest one, and a
   * parent waiting on the run gets the chain's final result.
   */
  continueAsNew(input: unknown): Promise<never>
  /** Start a child and go on; join it later with `handle.result()` (or never). */
  startChild<O = unknown>(workflow: string, input: unknown, options?: ChildOptions): ChildHandle<O>
  /**
   * A one-shot callback address for a third party; `await (await ctx.webhook()).wait()`
   * receives the first callback's body. See `engine.receiveWebhook`.
   */
  webhook(): Promise<Webhook>
  /**
   * The next accepted update sent with `engine.update(runId, name, arg)`. Each update is
   * validated here and the decision recorded; the caller gets it. Rejected ones are skipped.
   */
  onUpdate<A = unknown>(name: string, options?: UpdateOptions<A>): Promise<A>
  /** One child per input, in parallel; their results in input order. */
  all<O = unknown>(workflow: string, inputs: readonly unknown[], options?: AllOptions): Promise<O[]>
  /** One child per input, in parallel; every outcome, like `Promise.allSettled`. */
  allSettled<O = unknown>(
    workflow: string,
    inputs: readonly unknown[],
    options?: Omit<AllOptions, 'mode'>,
  ): Promise<PromiseSettledResult<O>[]>
}

export interface ChildOptions {
  /** The child's run id. Default: `<parent run id>/<position>`, stable across replays. */
  childId?: string
  /** Run this version of the child workflow instead of the newest registered one. */
  version?: string | number
  /**
   * The child's claim priority, -1000 to 1000 (docs/flow-control.md "Run priority").
   * Default: its parent's, so the whole tree of a high-priority run keeps its precedence.
   */
  priority?: number
}

/** A child started with `ctx.startChild`: its run id, and its result to await when needed. */
export interface ChildHandle<O> {
  readonly runId: string
  result(): Promise<O>
}

export interface AllOptions extends Omit<ChildOptions, 'childId'> {
  /**
   * `failFast` (default): reject at the first child that fails (the others run on).
   * `waitAll`: wait for every child, then reject with the first failure if any failed.
   */
  mode?: 'failFast' | 'waitAll'
}

export interface UpdateOptions<A> {
  /**
   * Decide whether to accept an update: `true` (or nothing) accepts; `false` or a string (the
   * reason) rejects; a throw rejects with its message. Runs in the workflow: keep it pure.
   */
  validate?: (arg: A) => boolean | string | void
  /** Give up after this long without an accepted update (SignalTimeoutError). */
  timeoutMs?: number
}

/** A callback address made by `ctx.webhook()`. */
export interface Webhook {
  /** Unguessable (128 random bits) and bound to this run: give it to the third party. */
  readonly token: string
  /** `<webhookUrl>/<token>` when the engine has `webhookUrl`, else null. */
  readonly url: string | null
  /** The body of the first callback with this token (kept if it came earlier); times out like a signal wait. */
  wait<T = unknown>(options?: SignalWaitOptions): Promise<T>
}

export interface EventWaitOptions {
  /**
   * Receive only events whose payload has these values: keys are dotted paths into the
   * payload (`'order.id'`), values strings, finite numbers, booleans or null, compared with
   * `===`. Default: every event of the name.
   */
  match?: Readonly<Record<string, string | number | boolean | null>>
  /** Give up after this long (engine clock), throwing EventTimeoutError. Default: wait forever. */
  timeoutMs?: number
}

export interface SignalWaitOptions {
  /** Give up after this long (engine clock), throwing SignalTimeoutError. Default: wait forever. */
  timeoutMs?: number
}

export type WorkflowBody<I = unknown, O = unknown> = (ctx: WorkflowContext, input: I) => Promise<O>

export interface WorkflowOptions {
  /** Default retry policy for this workflow's local steps. */
  retry?: RetryOptions
  /**
   * The workflow started as `dlq:<runId>` with a `DeadLetter` input when a run of this one
   * ends `dead` or `failed` (docs/dead-letters.md); overrides the engine's
   * `deadLetterWorkflow`, `null` for none. Default: the engine's.
   */
  deadLetterWorkflow?: string | null
  /**
   * A schedule starting runs of this workflow (docs/schedules.md): a ScheduleSpec without
   * `workflow`; its id is the workflow's name unless given. Put when the engine drives.
   */
  schedule?: WorkflowSchedule
  /**
   * Longest a run may live, from its creation (engine clock). When it runs out the run is
   * cancelled with E_WORKFLOW_TIMEOUT — while it executes (its steps' signals are aborted),
   * while it waits (it wakes for it), or when it is next claimed. Default: no limit.
   */
  executionTimeoutMs?: number
  /**
   * A Standard Schema (zod, valibot, arktype, … or any object with `~standard.validate`)
   * every `ctx.upsertSearchAttributes` call is checked against: it receives the call's
   * attributes as written, nulls (removals) included, so declare fields optional (each call
   * may set a few) and nullable where removal is allowed. Issues become E_INVALID_ARGUMENT
   * with `details.issues` ({ message, path }[]). May validate asynchronously.
   */
  searchAttributes?: StandardSchemaV1
  /**
   * A Standard Schema (VineJS, Zod, Valibot, ArkType, …) every start's input is checked against
   * before the run exists — `engine.start` (and the event and schedule starts made through it)
   * and `ctx.child` / `ctx.startChild`, on the engine that registers the workflow. Not a
   * `continueAsNew`: its input is the run's own, already past its code. The schema's output value is the input
   * the run stores (defaults, coercions applied once). A mismatch is E_SCHEMA_VALIDATION with
   * `details.issues` (docs/validation.md).
   */
  inputSchema?: StandardSchemaV1
  /**
   * Singleton admission (docs/flow-control.md): at most `limit` runs of one key at once, the
   * key computed from the run's input at start. Decided by the store in the write that
   * creates the run, exact across engines.
   */
  singleton?: SingletonOptions
  /**
   * Claim priority of the runs `engine.start` creates, -1000 to 1000, higher claimed first
   * (docs/flow-control.md "Run priority"); a start's own `priority` overrides it. Default 0.
   */
  priority?: number
  /**
   * The named queue every run of this workflow executes in (docs/flow-control.md "Whole runs
   * on a queue"): a run holds one of the queue's slots from before its first step until it
   * ends — through its waits — so at most `concurrency` runs of the queue are under way
   * fleet-wide. A start's own `queue` overrides it. Default: none.
   */
  queue?: string
  /**
   * Broadcast events that start a run of this workflow (docs/flow-control.md "Starting runs
   * from events"): `engine.publishEvent` starts one per matching event, exactly once per event id
   * (or per the trigger's derived run id), with the event's payload as input. At most 32.
   */
  onEvent?: readonly EventTrigger[]
  /**
   * The accumulator every `onEvent` trigger of this workflow feeds (a trigger's own `batch`
   * wins): one run per window of events instead of one per event (docs/flow-control.md
   * "Debounced and batched starts"). Default: none, a run per event.
   */
  eventBatch?: EventBatchOptions
}

/**
 * How a trigger's events are gathered into one run. `debounce`: a run starts `windowMs` after
 * the last event of a burst (no later than `maxWaitMs` after its first, when given), with that
 * last event's payload as input. `batch`: a run starts `windowMs` after the first event, or as
 * soon as `maxSize` have come (1..1000), with the payloads as its input — an array, in publish
 * order. `key(payload)` (a string of 0..200 characters) keeps separate windows apart, e.g. one
 * per product; default: one per workflow.
 */
export type EventBatchOptions =
  | {
      mode: 'debounce'
      windowMs: number
      maxWaitMs?: number
      key?: (payload: unknown) => string
    }
  | {
      mode: 'batch'
      maxSize: number
      windowMs: number
      key?: (payload: unknown) => string
    }

/** One trigger of a workflow (`onEvent`): an event name, or the name with what the event must hold. */
export type EventTrigger =
  | string
  | {
      /** The event's name (as `publishEvent` and `ctx.waitForEvent` take it). */
      name: string
      /**
       * Which events of the name start a run: dotted path → scalar, as `ctx.waitForEvent`'s
       * match (`{ 'order.country': 'FR' }`), or a function of the decoded payload (keep it
       * pure: it runs at each publish). Default: every event of the name.
       */
      match?:
        Readonly<Record<string, string | number | boolean | null>> | ((payload: unknown) => boolean)
      /**
       * The id of the run an event starts, from its decoded payload (a 1..255-character
       * string): events giving one id share one run. Default `evt:<workflow>:<eventId>`.
       */
      runId?: (payload: unknown) => string
      /**
       * Gather this trigger's events into one run per window instead of one per event
       * (EventBatchOptions); the run's id then comes from its window (no `runId`).
       */
      batch?: EventBatchOptions
    }

/** `register(…, { singleton })`: see WorkflowOptions.singleton. */
export interface SingletonOptions<I = never> {
  /**
   * The key of a run, from its input as the workflow receives it (decoded by the codec): a
   * string of 1..256 characters. Runs of one workflow (any version) with one key share slots.
   */
  key: (input: I) => string
  /** Runs of a key admitted at once. Default 1. */
  limit?: number
  /**
   * A start over the limit: `queue` (default) creates the run `queued`, started when a slot
   * frees, in start order; `reject` refuses it with E_SINGLETON_FULL, creating nothing.
   */
  onFull?: 'reject' | 'queue'
  /** `queue` only: at most this many queued runs per key; a start beyond is E_SINGLETON_FULL. */
  maxQueueDepth?: number
}

/** A workflow's own schedule (WorkflowOptions.schedule): its id defaults to the workflow's name. */
export type WorkflowSchedule = Omit<ScheduleSpec, 'workflow'> & { id?: string }
