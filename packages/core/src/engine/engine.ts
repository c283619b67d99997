/**
 * The Cairn engine: register workflows, start runs, read them, cancel them, and drive them.
 *
 *   const engine = new Engine({ store })
 *   engine.register('greet', 1, async (ctx, name: string) => ctx.localStep('hello', () => `hi ${name}`))
 *   await engine.startDriving()                // this process executes runs
 *   const { runId } = await engine.start('greet', 'Ada')
 *   const outcome = await engine.waitForRun(runId, { timeoutMs: 5_000 })
 *   await engine.close()                       // drain, then close the store
 *
 * A process that only starts and reads runs (a web server whose workers run elsewhere) never
 * calls `startDriving`.
 */
import { isTerminalStatus } from '../store/run_statuses.ts'
import { RemoteTransports } from './remote_transports.ts'
import {
  DEFAULT_SEEN_WITHIN_MS,
  type ListWorkersOptions,
  type TaskQueueDepth,
  type WorkerInfo,
} from './worker_views.ts'
import type {
  CheckpointPage,
  QueueStats,
  RunFacetQuery,
  RunFacets,
  StateStore,
} from '../contracts/state_store.ts'
import {
  InvalidArgumentError,
  RunNotFoundError,
  RunTerminalError,
  WaitTimeoutError,
} from '../errors/index.ts'
import { Deliverer } from '../execution/deliverer.ts'
import { LiveGrants } from '../execution/live_grants.ts'
import { SlotLeases } from './slot_leases.ts'
import { QueueRetries } from './queue_retries.ts'
import type {
  StepHandler,
  StepOptions,
  StepReference,
  WorkflowBody,
  WorkflowOptions,
} from '../execution/types.ts'
import { checkOptionKeys } from '../util/known_keys.ts'
import { checkInteger, checkTimeoutOrForever, NUMBER_RANGES } from '../util/numbers.ts'
import { assertIdentifier } from '../util/validate.ts'
import { Committer } from './committer.ts'
import { DRAIN_FLUSH_MS, Driver } from './driver.ts'
import { EventBatchFirer } from './event_batch_firer.ts'
import { ScheduleBook } from './schedule_book.ts'
import { ScheduleFirer } from './schedule_firer.ts'
import { redeliverEndedChildren } from './child_outcome_redelivery.ts'
import { RetentionSweeper, type PolicySweep } from './retention_sweeper.ts'
import { deleteRun, purgeRuns, type PurgeFilter, type PurgeReport } from './run_purger.ts'
import { deletionPauseMs } from './retention_policy.ts'
import { scheduleEvents } from './schedule_events.ts'
import type { DeclaredSchedule, ScheduleSpec } from './schedule_spec.ts'
import type { ScheduleInfo } from './schedule_view.ts'
import { publishEvent, type PublishEventOptions, type PublishedEvent } from './event_publisher.ts'
import { EventHub, type EngineEventName, type EngineEvents, type Listener } from './events.ts'
import * as specs from './option_specs.ts'
import { resolveEngineOptions, type EngineOptions, type ResolvedEngineOptions } from './options.ts'
import { WorkflowRegistry } from './registry.ts'
import { StepRegistry } from './step_registry.ts'
import { QueueRegistry, type QueueOptions } from './queue_registry.ts'
import { MAX_QUEUES_PER_CALL } from '../store/queue_check.ts'
import { compareCodePoints } from '../store/memory/code_point_order.ts'
import { startRun, type StartedRun, type StartOptions } from './run_starter.ts'
import { fork, retryWithInput, type ForkOptions, type RetryWithInputOptions } from './run_copier.ts'
import { requeueRun, type RequeueReceipt } from './requeuer.ts'
import { continueRun, type ContinueOptions } from './breakpoint_continuer.ts'
import { readEvent, type GetEventOptions } from './event_reader.ts'
import { successorOf } from './inbox_adoption.ts'
import { CANCEL_SIGNAL } from '../execution/wait_names.ts'
import { cancelChildren, cancelOne, type CancellationDeps } from './cancellation.ts'
import { RunWaiters } from './run_waiters.ts'
import { readStepPage, type StepPage } from './step_page.ts'
import { exportHistory, type RecordedHistory } from './history_export.ts'
import { readStepLogs, type StepLogInfo } from './step_log_view.ts'
import type { StepLogPage } from '../contracts/step_logs.ts'
import { StepLogSink } from './step_log_sink.ts'
import { sendUpdate, type UpdateCallOptions, type UpdateResult } from './update_sender.ts'
import { receiveWebhook, type WebhookReceipt } from './webhook_receiver.ts'
import {
  deliverSignal,
  sendSignal,
  type SignalOptions,
  type SignalReceipt,
  type SignalToken,
} from './signal_sender.ts'
import {
  terminalOutcome,
  toOutcome,
  toRunInfo,
  toStepInfo,
  timelineRecords,
  type RunInfo,
  type RunOutcome,
  type StepInfo,
} from './views.ts'
import type { AdmissionKeyPage, ListRunsQuery, RunBacklog } from '../contracts/state_store.ts'
import type { WorkflowKey } from '../contracts/records.ts'
import type { SearchAttributes } from '../contracts/search_attributes.ts'

export interface WaitOptions {
  /**
   * Give up after this long with E_WAIT_TIMEOUT (the run goes on): an integer number of ms, or
   * `Infinity`. Default: wait forever. Anything else is E_INVALID_ARGUMENT.
   */
  timeoutMs?: number
}

export interface CancelOptions {
  /** Recorded as the cancelled run's error message. */
  reason?: string
  /**
   * Saga cancel: instead of ending the run at once, ask it to stop starting new work and undo
   * its completed steps (their `compensate`, newest first, each recorded); it then ends
   * `cancelled`. Takes effect at once when this engine runs the run, else at its next turn.
   */
  compensate?: boolean
}

/** Which singleton keys `engine.singletonKeys` lists (StateStore.admissionKeys). */
export interface SingletonKeysQuery {
  /** Only keys of this workflow (its name: the keys' scope). */
  workflow?: string
  /** 1..1000; default 50. */
  limit?: number
  /** A previous page's `nextCursor`. */
  cursor?: string
}

/** How a drain ended: every executing run finished or suspended, or `released` were handed back. */
export interface DrainResult {
  finished: boolean
  released: number
}

export interface RunList<I = unknown, O = unknown> {
  runs: RunInfo<I, O>[]
  nextCursor: string | null
}

export class Engine {
  readonly options: ResolvedEngineOptions
  private readonly registry = new WorkflowRegistry()
  private readonly steps: StepRegistry
  private readonly queues = new QueueRegistry()
  private readonly queueRetries: QueueRetries
  private readonly slotLeases: SlotLeases
  private readonly eventBatches: EventBatchFirer
  private readonly scheduleBook: ScheduleBook
  private readonly scheduleFirer: ScheduleFirer
  /** Null without retention policies. */
  private readonly retention: RetentionSweeper | null
  private readonly events: EventHub
  private readonly committer: Committer
  private readonly waiters = new RunWaiters()
  private readonly driver: Driver
  private readonly remote: RemoteTransports
  private opening: Promise<void> | null = null
  private closing: Promise<DrainResult> | null = null

  constructor(options: EngineOptions) {
    this.options = resolveEngineOptions(options)
    const { store, clock, logger, maxBatch } = this.options
    this.events = new EventHub(logger)
    const liveGrants = new LiveGrants()
    this.queueRetries = new QueueRetries({
      options: this.options,
      liveGrants,
      wake: (at) => this.driver.wake(at),
    })
    this.eventBatches = new EventBatchFirer({
      options: this.options,
      workflows: () => this.registry.newestOfEach().map((workflow) => workflow.name),
      start: (workflow, input, runId) => this.start(workflow, input, { runId }),
    })
    const startWindow = (workflow: string, version: string | null, input: unknown, runId: string) =>
      this.start(workflow, input, { runId, ...(version === null ? {} : { version }) })
    this.scheduleBook = new ScheduleBook({
      options: this.options,
      changed: () => this.scheduleFirer.changed(),
      start: startWindow,
    })
    this.scheduleFirer = new ScheduleFirer({
      options: this.options,
      workflows: () => this.registry.newestOfEach().map((workflow) => workflow.name),
      start: startWindow,
      inputFn: (id) => this.scheduleBook.inputFn(id),
      cancel: (runId, reason) => this.cancel(runId, { reason }),
      events: scheduleEvents(this.events),
    })
    for (const declared of this.options.schedules)
      this.scheduleBook.declare(this.scheduleBook.check(declared))
    const policies = this.options.retention
    this.retention =
      policies === null ? null : new RetentionSweeper(this.options, policies, this.events)
    this.committer = new Committer({
      store,
      clock,
      logger,
      maxBatch,
      onGrants: (grants) => liveGrants.deliver(grants),
      onThrottled: (throttled) => this.queueRetries.note(throttled),
    })
    this.slotLeases = new SlotLeases({
      store,
      clock,
      logger,
      owner: this.options.instanceId,
      leaseMs: this.options.leaseMs,
      localWaitMs: this.options.holdTimersUpToMs,
      grantQueue: (queue) => this.queueRetries.grantNow([queue]),
    })
    const stepLogs = new StepLogSink(store, clock, logger, this.options.stepLogs)
    this.remote = new RemoteTransports(
      this.options.transports,
      logger,
      this.options.clock,
      this.options.monotonic,
      stepLogs,
    )
    this.steps = new StepRegistry((name) => this.remote.has(name))
    for (const [name, queue] of Object.entries(this.options.queues)) this.queues.add(name, queue)
    this.driver = new Driver({
      options: this.options,
      registry: this.registry,
      steps: this.steps,
      queues: this.queues,
      committer: this.committer,
      stepLogs,
      deliverer: new Deliverer(),
      events: this.events,
      waiters: this.waiters,
      cancelChildren: (runId, reason) => cancelChildren(this.cancellationDeps(), runId, reason),
      remote: this.remote,
      liveGrants,
      slotLeases: this.slotLeases,
      queueRetries: this.queueRetries,
      jobs: [this.eventBatches, this.scheduleFirer, ...(this.retention ? [this.retention] : [])],
    })
  }

  get store(): StateStore {
    return this.options.store
  }

  get instanceId(): string {
    return this.options.instanceId
  }

  /** Register a workflow body under a name and version. */
  register<I, O>(
    name: string,
    version: string | number,
    body: WorkflowBody<I, O>,
    options?: WorkflowOptions,
  ): this {
    const schedule = this.workflowSchedule(name, options)
    const entry = this.registry.add(name, version, body as WorkflowBody<never, unknown>, options)
    void this.driver.registered({ workflow: entry.name, version: entry.version })
    this.eventBatches.workflowsChanged()
    this.scheduleFirer.changed()
    if (schedule !== null) {
      this.scheduleBook.declare(schedule)
      if (this.driver.isDriving)
        this.scheduleBook
          .putOne(schedule.id)
          .catch((error: unknown) =>
            this.options.logger.error(
              { err: error, scheduleId: schedule.id },
              'cairn: could not put a workflow schedule; it is put again at the next start',
            ),
          )
    }
    return this
  }

  /** A workflow's own `schedule` as a declaration, checked before anything is registered. */
  private workflowSchedule(
    name: string,
    options: WorkflowOptions | undefined,
  ): DeclaredSchedule | null {
    const schedule = options?.schedule
    if (schedule === undefined) return null
    if (typeof schedule !== 'object' || schedule === null)
      throw new InvalidArgumentError(
        `workflow "${name}": schedule is an object { cron | everyMs, … }`,
      )
    const { id, ...spec } = schedule as { id?: string }
    return this.scheduleBook.check({ ...spec, id: id ?? name, workflow: name })
  }

  /**
   * Register a step `ctx.step(name, input)` calls: a handler `(input, stepCtx) => output` and
   * its retry/timeout options (those of `ctx.localStep`), checked now. Either a `defineStep`
   * reference or name, handler and options. A name registered twice throws E_DUPLICATE_STEP.
   */
  registerStep<I, O>(step: StepReference<I, O>): this
  registerStep<I, O>(name: string, handler: StepHandler<I, O>, options?: StepOptions): this
  registerStep<I, O>(
    step: string | StepReference<I, O>,
    handler?: StepHandler<I, O>,
    options?: StepOptions,
  ): this {
    if (typeof step === 'object' && step !== null)
      this.steps.add(step.name, step.handler as StepHandler<never, unknown>, step.options)
    else this.steps.add(step, handler as StepHandler<never, unknown>, options)
    void this.driver.stepRegistered()
    return this
  }

  /**
   * Register a named queue steps can be called on (`ctx.step(ref, input, { queue })`): each
   * attempt of such a step holds one of its `concurrency` slots, shared by every engine on
   * the store (docs/flow-control.md "Queues"). A name registered twice throws.
   */
  registerQueue(name: string, options: QueueOptions): this {
    this.queues.add(name, options)
    void this.driver.queueRegistered()
    return this
  }

  /** The workflow versions registered on this engine, in registration order. */
  registeredWorkflows(): readonly WorkflowKey[] {
    return this.registry.keys()
  }

  /** Open the store (migrations). Called for you by every other method; idempotent. */
  open(): Promise<void> {
    this.opening ??= this.options.store.open()
    return this.opening
  }

  /** Start a run of the newest registered version of `name` (or `options.version`). */
  async start<I>(name: string, input: I, options?: StartOptions): Promise<StartedRun> {
    await this.open()
    return startRun(this.starterDeps(), name, input, options)
  }

  /**
   * Start a new run of `runId`'s workflow and version with `input` (retry with edited input):
   * nothing is copied; the new run's `origin` is `{ kind: 'retry', runId, fromSeq: null }`.
   * Any source status. The workflow need not be registered here: an engine that has it drives
   * the run. E_RUN_NOT_FOUND for an unknown source (docs/retry-and-fork.md).
   */
  async retryWithInput<I>(
    runId: string,
    input: I,
    options?: RetryWithInputOptions,
  ): Promise<StartedRun> {
    checkOptionKeys(options, specs.RETRY_WITH_INPUT_OPTIONS)
    await this.open()
    return retryWithInput(this.starterDeps(), runId, input, options)
  }

  /**
   * Start a new run of `runId`'s workflow and version that reuses the source's delivered
   * outcomes at positions below `options.fromSeq` and runs the rest again, with the source's
   * input or `options.input`; `origin` is `{ kind: 'fork', runId, fromSeq }`. The workflow
   * need not be registered here. E_RUN_NOT_FOUND for an unknown source, E_INVALID_ARGUMENT
   * for a fromSeq that is not an integer from 0 to the source's number of positions.
   */
  async fork(runId: string, options: ForkOptions): Promise<StartedRun> {
    // Absent or not an object: fork's own message says { fromSeq } is required.
    if (typeof options === 'object' && options !== null)
      checkOptionKeys(options, specs.FORK_OPTIONS)
    await this.open()
    return fork(this.starterDeps(), runId, options)
  }

  /**
   * Send a signal to a run: `ctx.waitForSignal(token.name)` in that run receives `payload` —
   * at once if it waits, when it gets there otherwise. E_RUN_NOT_FOUND / E_RUN_TERMINAL for a
   * run that does not exist or has finished. Retries are safe with `options.signalId`.
   */
  async signal(
    token: SignalToken,
    payload?: unknown,
    options?: SignalOptions,
  ): Promise<SignalReceipt> {
    checkOptionKeys(options, specs.SIGNAL_OPTIONS)
    await this.open()
    return sendSignal(this.signalDeps(), token, payload, options)
  }

  /**
   * Start the run if it does not exist yet (idempotent by `options.runId`, which is required),
   * then send it the signal. For "create or update" flows: the first event starts the run,
   * every event reaches it.
   */
  async signalWithStart<I>(
    name: string,
    input: I,
    options: StartOptions & { runId: string },
    signal: { name: string; payload?: unknown; signalId?: string },
  ): Promise<StartedRun & { signal: SignalReceipt }> {
    if (typeof options?.runId !== 'string')
      throw new InvalidArgumentError(
        'signalWithStart needs options.runId: the run to start or signal',
      )
    checkOptionKeys(signal, specs.SIGNAL_WITH_START_SIGNAL)
    const started = await this.start(name, input, options)
    const receipt = await sendSignal(
      this.signalDeps(),
      { runId: started.runId, name: signal.name },
      signal.payload,
      { signalId: signal.signalId },
    )
    return { ...started, signal: receipt }
  }

  /**
   * Broadcast an event: every run whose `ctx.waitForEvent(name, { match })` began at or before
   * this call and still waits receives `payload`, if its match holds (a wait that begins later
   * never sees it), and every registered workflow whose `onEvent` matches gets a run started,
   * once per event id. Idempotent by `options.eventId`. Resolves with the event id, how many
   * waits this call delivered to and what each triggered start came to (`started`).
   * E_INVALID_ARGUMENT for a bad name or id, E_NOT_SERIALIZABLE (nothing stored) for a payload
   * the codec refuses, E_STORE_FAILURE when a start failed for a reason a retry can mend.
   */
  async publishEvent(
    name: string,
    payload?: unknown,
    options?: PublishEventOptions,
  ): Promise<PublishedEvent> {
    if (typeof options === 'object' && options !== null)
      checkOptionKeys(options, specs.PUBLISH_EVENT_OPTIONS)
    await this.open()
    return publishEvent(
      {
        ...this.signalDeps(),
        workflows: () => this.registry.newestOfEach(),
        start: (workflow, input, runId) => this.start(workflow, input, { runId }),
        batchDueAt: (at) => this.eventBatches.dueAt(at),
      },
      name,
      payload,
      options,
    )
  }

  /**
   * Resume a run stopped at `ctx.breakpoint` (the earliest, or the one named `options.label`);
   * `options.note` becomes the breakpoint's result. Idempotent per breakpoint.
   * E_NOT_AT_BREAKPOINT when the run waits at no such breakpoint.
   */
  async continue(
    runId: string,
    options?: ContinueOptions,
  ): Promise<SignalReceipt & { label: string }> {
    checkOptionKeys(options, specs.CONTINUE_OPTIONS)
    await this.open()
    return continueRun(this.signalDeps(), runId, options)
  }

  /**
   * The latest value run `runId` published with `ctx.setEvent(key, …)`, or undefined; with
   * `timeoutMs`, waits that long for a first one. E_RUN_NOT_FOUND for an unknown run.
   */
  async getEvent<T = unknown>(
    runId: string,
    key: string,
    options?: GetEventOptions,
  ): Promise<T | undefined> {
    checkOptionKeys(options, specs.GET_EVENT_OPTIONS)
    await this.open()
    return readEvent<T>(this.options, runId, key, options)
  }

  /**
   * Deliver a webhook callback (`token` from `ctx.webhook()`, `body` any codec-safe value):
   * `accepted` (kept for the run's `wait()`) or `duplicate`; E_WEBHOOK_NOT_FOUND for a token no
   * run recorded, E_RUN_TERMINAL once the run has finished. `webhookHttpResponse` maps outcomes
   * to HTTP statuses for a route.
   */
  async receiveWebhook(token: string, body: unknown): Promise<WebhookReceipt> {
    await this.open()
    return receiveWebhook(this.signalDeps(), token, body)
  }

  /**
   * Send an update to a run and wait for its decision: `{ accepted: true }`, or `{ accepted:
   * false, reason }` from the workflow's validator (a rejected update changes nothing).
   * Idempotent by `updateId`. E_WAIT_TIMEOUT when the run has not decided in time.
   */
  async update(
    runId: string,
    name: string,
    arg: unknown,
    options?: UpdateCallOptions,
  ): Promise<UpdateResult> {
    checkOptionKeys(options, specs.UPDATE_OPTIONS)
    await this.open()
    return sendUpdate(this.signalDeps(), runId, name, arg, options)
  }

  /** Begin executing runs in this process: pending work, due timers, expired leases. */
  async startDriving(): Promise<void> {
    await this.open()
    await this.remote.start(this.signalDeps())
    await this.scheduleBook.putDeclared()
    await this.driver.start()
  }

  /**
   * Graceful shutdown: stop taking runs, let executing turns finish or suspend for up to
   * `timeoutMs` (an integer ≥ 0, or `Infinity`: until every turn has ended), then release the
   * rest so another engine picks them up at once.
   */
  drain(timeoutMs = 10_000): Promise<DrainResult> {
    try {
      return this.driver.drain(checkTimeoutOrForever(timeoutMs, 'drain timeoutMs'))
    } catch (error) {
      return Promise.reject(error)
    }
  }

  /**
   * Drain (default 10s), flush writes and close the store; resolves with the drain's result.
   * A second call waits for the first one (its timeout is ignored): whoever closes second —
   * a framework's shutdown hook after a signal handler — must not carry on before the store
   * is closed.
   */
  close(drainTimeoutMs = 10_000): Promise<DrainResult> {
    if (this.closing === null) {
      try {
        checkTimeoutOrForever(drainTimeoutMs, 'close drainTimeoutMs')
      } catch (error) {
        return Promise.reject(error)
      }
    }
    this.closing ??= this.closeOnce(drainTimeoutMs)
    return this.closing
  }

  /** The run, or null for an unknown id. */
  async getRun<I = unknown, O = unknown>(runId: string): Promise<RunInfo<I, O> | null> {
    await this.open()
    const run = await this.options.store.getRun(runId)
    if (run === null) return null
    const attributes = await this.options.store.loadSearchAttributes([runId])
    return toRunInfo<I, O>(run, this.options.codec, attributes.get(runId))
  }

  /** The run's checkpoints (its timeline), in position order. */
  async getSteps(runId: string): Promise<StepInfo[]> {
    await this.open()
    const records = await this.options.store.loadCheckpoints(runId)
    return timelineRecords(records).map((r) => toStepInfo(r, this.options.codec))
  }

  /**
   * One page of the run's checkpoints (positions >= `page.fromSeq`, at most `page.limit`,
   * 1..1000), mapped as getSteps maps them; `nextFromSeq` is where the next page starts, or
   * null after a short page (see step_page.ts: a full last page gives a cursor whose page is
   * empty). [] for an unknown run. E_INVALID_ARGUMENT for a bad fromSeq or limit.
   */
  async getStepsPage(runId: string, page: CheckpointPage): Promise<StepPage> {
    if (typeof page === 'object' && page !== null) checkOptionKeys(page, specs.STEPS_PAGE)
    await this.open()
    return readStepPage(this.options.store, this.options.codec, runId, page)
  }

  /**
   * What the run's steps logged and reported (`stepCtx.log`, `stepCtx.progress`;
   * docs/step-logs.md), per position that has any: positions >= `page.fromSeq` (default 0),
   * at most `page.limit` (1..1000, default 1000), in position order; with `updatedFrom` (ms,
   * the writing engine's clock) only those changed since. [] for an unknown run.
   * E_INVALID_ARGUMENT for a bad fromSeq, limit or updatedFrom.
   */
  async getStepLogs(runId: string, page: Partial<StepLogPage> = {}): Promise<StepLogInfo[]> {
    if (typeof page === 'object' && page !== null) checkOptionKeys(page, specs.STEP_LOGS_PAGE)
    await this.open()
    const { fromSeq = 0, limit = 1000, updatedFrom } = page ?? {}
    const range = updatedFrom === undefined ? { fromSeq, limit } : { fromSeq, limit, updatedFrom }
    return readStepLogs(this.options.store, this.options.codec, runId, range)
  }

  /**
   * The run's recorded history as a versioned JSON document (engine/history_export.ts): the
   * run (its input as the codec wrote it) and every checkpoint in position order, payloads as
   * stored. Keep it as a fixture and replay it against new code with `replayHistory`
   * (`@cairn/core/testing`). E_RUN_NOT_FOUND for an unknown id.
   */
  async exportHistory(runId: string): Promise<RecordedHistory> {
    await this.open()
    return exportHistory(this.options.store, runId, this.options.clock.now())
  }

  /**
   * Run counts per status and per workflow (the 100 largest) for the filters of `query`,
   * counted by the store (see StateStore.facetRuns: the two counts are separate reads).
   */
  async facetRuns(query: RunFacetQuery = {}): Promise<RunFacets> {
    checkOptionKeys(query, specs.FACET_RUNS_QUERY)
    await this.open()
    return this.options.store.facetRuns(query)
  }

  /**
   * How much work waits for an engine now (engine clock): pending and waiting runs, timers
   * due and not yet picked up, and when the oldest pending run became claimable. One store
   * read of aggregates (StateStore.backlog); for metrics and operators.
   */
  async backlog(): Promise<RunBacklog> {
    await this.open()
    return this.options.store.backlog(this.options.clock.now())
  }

  /**
   * The queues registered on this engine as the store sees them now, in name order: each
   * one's concurrency (the newest writer's), slots in use, steps waiting and since when
   * (QueueStats). A registered queue no step has used yet reads as its registration: nothing
   * in use or waiting. Counts every engine's steps. For metrics, the dashboard and the CLI.
   */
  async queueStats(): Promise<QueueStats[]> {
    await this.open()
    const names = this.queues.names()
    const found = new Map<string, QueueStats>()
    for (let i = 0; i < names.length; i += MAX_QUEUES_PER_CALL)
      for (const stats of await this.options.store.queueStats(
        names.slice(i, i + MAX_QUEUES_PER_CALL),
        this.options.clock.now(),
      ))
        found.set(stats.queue, stats)
    return names.sort(compareCodePoints).map(
      (queue) =>
        found.get(queue) ?? {
          queue,
          concurrency: this.queues.find(queue)?.concurrency ?? 0,
          granted: 0,
          leased: 0,
          waiting: 0,
          oldestWaitingSince: null,
          rateLimit: this.queues.find(queue)?.rateLimit ?? null,
          recentGrants: 0,
          throttled: 0,
        },
    )
  }

  /**
   * The singleton keys with open runs, in (workflow, key) code point order, of `workflow` only
   * when given: each one's limit (the newest start's), runs holding a slot, runs queued and the
   * creation time of the first queued one (StateStore.admissionKeys: counted by the store from
   * the runs, every engine's). A key's runs: `listRuns({ admissionKey: { scope, key } })`.
   * E_INVALID_ARGUMENT for a malformed query, E_INVALID_CURSOR for a cursor not issued.
   */
  async singletonKeys(query: SingletonKeysQuery = {}): Promise<AdmissionKeyPage> {
    checkOptionKeys(query, specs.SINGLETON_KEYS_QUERY)
    await this.open()
    const { workflow, limit, cursor } = query
    return this.options.store.admissionKeys({
      ...(workflow === undefined ? {} : { scope: workflow }),
      ...(limit === undefined ? {} : { limit }),
      ...(cursor === undefined ? {} : { cursor }),
    })
  }

  /**
   * What waits on the engine's transports now, per transport and step: due tasks no worker
   * holds, delayed ones, held ones, and the age of the oldest due one (EngineTransport.depth).
   * Reads the transports, not the store; counts every engine's tasks. For metrics.
   */
  async taskDepth(): Promise<TaskQueueDepth[]> {
    return this.remote.depth(this.options.clock.now(), this.steps.names())
  }

  /**
   * The remote-step workers heard on this engine's transports: each one's newest announcement
   * made within `seenWithinMs` (default 30 s), by transport then worker id, with the protocol
   * version this engine agrees with it (null: incompatible). Reads the transports, not the store.
   */

  async listWorkers(options: ListWorkersOptions = {}): Promise<WorkerInfo[]> {
    checkOptionKeys(options, specs.LIST_WORKERS_OPTIONS)
    const seenWithinMs =
      options.seenWithinMs === undefined
        ? DEFAULT_SEEN_WITHIN_MS
        : checkInteger(options.seenWithinMs, 'seenWithinMs', NUMBER_RANGES.periodMs)
    return this.remote.workers(seenWithinMs, Date.now())
  }

  /**
   * Runs, newest first (`order: 'oldest'` for oldest first); filter by workflow, version,
   * status, parent, tag, origin, singleton key (`admissionKey`: its open runs), creation time
   * window, id substring and search attributes (evaluated by the store: SQL stores in the
   * query); page with `cursor`, which keeps the order of the page that gave it (E_INVALID_CURSOR with the other order). Each run comes
   * with its search attributes (one more read per page).
   */
  async listRuns<I = unknown, O = unknown>(query: ListRunsQuery = {}): Promise<RunList<I, O>> {
    checkOptionKeys(query, specs.LIST_RUNS_QUERY)
    await this.open()
    const page = await this.options.store.listRuns(query)
    const attributes =
      page.runs.length === 0
        ? new Map<string, SearchAttributes>()
        : await this.options.store.loadSearchAttributes(page.runs.map((r) => r.id))
    return {
      runs: page.runs.map((r) => toRunInfo<I, O>(r, this.options.codec, attributes.get(r.id))),
      nextCursor: page.nextCursor,
    }
  }

  /**
   * Resolves with the run's outcome once it is terminal; E_WAIT_TIMEOUT after `timeoutMs`. A
   * run that continued as new is followed along its chain: the outcome is the last run's (its
   * `runId` says which).
   */
  async waitForRun<O = unknown>(runId: string, options: WaitOptions = {}): Promise<RunOutcome<O>> {
    checkOptionKeys(options, specs.WAIT_OPTIONS)
    const timeoutMs = checkTimeoutOrForever(options?.timeoutMs, 'waitForRun timeoutMs')
    await this.open()
    const deadline = Date.now() + timeoutMs
    let current = runId
    for (let pollMs = 5; ; pollMs = Math.min(pollMs * 2, 250)) {
      // Executing here: its turn tells us how it ended, with no store read when it finished.
      if (this.driver.turnOf(current) !== undefined) {
        const finished = await this.waiters.wait(current, deadline - Date.now())
        if (finished?.status === 'continued' && finished.continuedTo != null) {
          current = finished.continuedTo
          continue
        }
        if (finished !== null && finished.status !== 'continued')
          return terminalOutcome<O>(
            current,
            { ...finished, status: finished.status },
            this.options.codec,
          )
      } else {
        const run = await this.options.store.getRun(current)
        if (run === null)
          throw new RunNotFoundError(`no run with id "${current}"`, { details: { runId: current } })
        if (run.status === 'continued' && run.continuedTo !== null) {
          current = run.continuedTo
          continue
        }
        if (isTerminalStatus(run.status)) return toOutcome<O>(run, this.options.codec)
        if (Date.now() < deadline)
          await this.waiters.wait(current, Math.min(pollMs, deadline - Date.now()))
      }
      if (Date.now() >= deadline) return this.waitTimeout(current, options.timeoutMs)
    }
  }

  /**
   * Cancel a run that has not finished: it becomes `cancelled` at once, its executing turn (here
   * or elsewhere) is fenced off, and no new step starts. E_RUN_NOT_FOUND for an unknown id;
   * cancelling a finished run is E_RUN_TERMINAL naming its status. A run that continued as new
   * passes the cancel on to the latest run of its chain.
   */
  async cancel(runId: string, options: CancelOptions = {}): Promise<void> {
    assertIdentifier(runId, 'runId')
    checkOptionKeys(options, specs.CANCEL_OPTIONS)
    await this.open()
    const reason = options.reason ?? 'run cancelled'
    // A queued run never started: nothing to compensate, and it must leave its key's queue now.
    if (options.compensate === true && !(await this.isQueued(runId)))
      return this.cancelCompensating(runId, reason)
    const result = await cancelOne(this.cancellationDeps(), runId, reason)
    if (result === null || result.status === 'not_found')
      throw new RunNotFoundError(`no run with id "${runId}"`, { details: { runId } })
    if (result.status === 'terminal' && result.current.status === 'continued') {
      const successor = await successorOf(this.options.store, runId)
      if (successor !== null) return this.cancel(successor, options)
    }
    if (result.status === 'terminal') {
      throw notCancellable(runId, result.current.status)
    }
    await cancelChildren(this.cancellationDeps(), runId, reason)
  }

  /**
   * Retry a run that ended `failed`: it becomes `pending` again and resumes by replay. The
   * step failure that made it fail (and any failed step recorded after it) runs again with a
   * fresh retry budget; completed steps are replayed, not re-run (docs/requeue.md has the
   * rule). Wakes this engine's driving at once. E_RUN_NOT_FOUND for an unknown id;
   * E_RUN_NOT_REQUEUEABLE, naming the status, for a run that is not failed (a second
   * concurrent requeue gets it with `pending`), that ran its saga compensations, or that is past
   * its workflow's execution timeout.
   */
  async requeue(runId: string): Promise<RequeueReceipt> {
    assertIdentifier(runId, 'runId')
    await this.open()
    return requeueRun(
      {
        options: this.options,
        events: this.events,
        executionTimeoutMs: (workflow, version) =>
          this.registry.find(workflow, version)?.options.executionTimeoutMs,
        wake: (at) => this.driver.wake(at),
        redeliverChildren: (parent) =>
          redeliverEndedChildren({ options: this.options, committer: this.committer }, parent),
      },
      runId,
    )
  }

  /**
   * Delete a finished run with its child subtree and every row of theirs (checkpoints, inbox,
   * tags, search attributes, event waits): `{ runs }` deleted in all. E_RUN_NOT_FOUND for an
   * unknown id; E_RUN_NOT_DELETABLE (`details.blocker`) while the run, one of its descendants,
   * or its parent is open. A large tree goes over several bounded transactions, deepest runs
   * first. docs/retention.md.
   */
  async deleteRun(runId: string): Promise<{ runs: number }> {
    await this.open()
    return deleteRun(this.options.store, runId)
  }

  /**
   * Delete the finished runs matching `filter` (listRuns' filters; `status` required, terminal
   * only), oldest first, each with its subtree. Runs an open run still needs are kept and
   * reported (`refused`). docs/retention.md.
   */
  async purgeRuns(filter: PurgeFilter): Promise<PurgeReport> {
    await this.open()
    const pauseMs = deletionPauseMs(this.options.retention, this.options.store.kind)
    return purgeRuns(this.options.store, filter, pauseMs)
  }

  /**
   * Sweep every retention policy now (the driving engines do it every `retention.interval`):
   * what each deleted. [] without policies.
   */
  async sweepRetention(): Promise<PolicySweep[]> {
    await this.open()
    return this.retention === null ? [] : this.retention.sweepNow()
  }

  /**
   * Resolves once this engine has nothing in flight — no store write or poll, no step
   * executing, no outcome undelivered; runs wait only on timers — or after `maxMs`. For test
   * harnesses that move a fake clock: they wait for this between timer firings, whatever the
   * store's I/O latency.
   */
  async whenQuiet(maxMs = 5_000): Promise<void> {
    const deadline = Date.now() + maxMs
    let calmTurns = 0
    while (calmTurns < 3 && Date.now() < deadline) {
      await new Promise((resolve) => setImmediate(resolve))
      calmTurns = this.committer.idle && this.driver.quiet ? calmTurns + 1 : 0
      if (calmTurns === 0) await new Promise((resolve) => setTimeout(resolve, 1))
    }
  }

  /** Subscribe to lifecycle events; returns the unsubscribe function. */
  on<E extends EngineEventName>(event: E, listener: Listener<E>): () => void {
    return this.events.on(event, listener)
  }

  /**
   * Call `handler` when this engine ends a run `dead` (`maxRecoveryAttempts`; the `run:dead`
   * event). A throwing handler is logged, never the engine's failure. Returns its removal.
   * Runs ended dead by another engine call that engine's handlers: register it on every
   * driving engine, or use a dead-letter workflow (durable, exactly once per run).
   */
  onDead(handler: (dead: EngineEvents['run:dead']) => void): () => void {
    return this.events.on('run:dead', handler)
  }

  /**
   * Create schedule `id`, or update it (docs/schedules.md): runs of `spec.workflow` started on
   * a cron pattern or every `everyMs`, exactly once per window by whichever driving engine
   * fires it. An update that changes when windows fall counts them from now. E_INVALID_ARGUMENT
   * for a bad spec, nothing written.
   */
  async schedule<I>(id: string, spec: ScheduleSpec<I>): Promise<ScheduleInfo> {
    await this.open()
    return this.scheduleBook.schedule(id, spec as ScheduleSpec)
  }

  /** Stop schedule `id` firing until resumed. E_SCHEDULE_NOT_FOUND for an unknown id. */
  async pauseSchedule(id: string): Promise<ScheduleInfo> {
    await this.open()
    return this.scheduleBook.setPaused(id, true)
  }

  /** Fire schedule `id` again, its windows counted from now (none missed while paused). */
  async resumeSchedule(id: string): Promise<ScheduleInfo> {
    await this.open()
    return this.scheduleBook.setPaused(id, false)
  }

  /** Delete schedule `id` (its runs stay); true when it existed. */
  async deleteSchedule(id: string): Promise<boolean> {
    await this.open()
    return this.scheduleBook.delete(id)
  }

  async getSchedule(id: string): Promise<ScheduleInfo | null> {
    await this.open()
    return this.scheduleBook.get(id)
  }

  /** Schedules by id, `limit` (default 100) after `after`. */
  async listSchedules(query?: { after?: string; limit?: number }): Promise<ScheduleInfo[]> {
    await this.open()
    return this.scheduleBook.list(query)
  }

  /**
   * Start a run of schedule `id` now (`sch:<id>:manual:<ISO time>`), outside its windows and
   * its overlap policy. E_SCHEDULE_NOT_FOUND for an unknown id.
   */
  async triggerSchedule(id: string): Promise<{ runId: string }> {
    await this.open()
    return this.scheduleBook.trigger(id)
  }

  /** Whether this engine currently executes runs. */
  get isDriving(): boolean {
    return this.driver.isDriving
  }

  /** Runs executing in this process now. */
  get activeRuns(): number {
    return this.driver.activeRuns
  }

  /** Suspended runs kept in this process's run cache now (`maxCachedRuns`; docs/run-cache.md). */
  get cachedRuns(): number {
    return this.driver.cachedRuns
  }

  private async closeOnce(drainTimeoutMs: number): Promise<DrainResult> {
    const drained = await this.drain(drainTimeoutMs)
    await this.remote.stop()
    const stallMs = drainTimeoutMs === Infinity ? Infinity : DRAIN_FLUSH_MS
    if (!(await this.committer.settle(stallMs)))
      this.options.logger.error(
        { writes: this.committer.backlog },
        'cairn: the store did not take the last writes before close; runs they would have ' +
          'handed back are claimed when their leases expire',
      )
    await this.slotLeases.close()
    this.committer.close()
    this.queueRetries.close()
    if (this.opening !== null) await this.options.store.close()
    return drained
  }

  private async waitTimeout(runId: string, timeoutMs: number | undefined): Promise<never> {
    const status = (await this.options.store.getRun(runId))?.status
    throw new WaitTimeoutError(
      `run "${runId}" is still ${status ?? 'unknown'} after ${timeoutMs} ms`,
      { details: { runId, status } },
    )
  }

  private async emitCancelled(runId: string): Promise<void> {
    if (!this.events.wants('run:cancelled')) return
    const run = await this.options.store.getRun(runId)
    if (run !== null)
      this.events.emit('run:cancelled', { runId, workflow: run.workflow, version: run.version })
  }

  /**
   * Ask the run to stop and undo its completed steps: a message its next turn acts on (at
   * once when this engine runs it). It ends `cancelled` once its compensations are recorded.
   */
  private async isQueued(runId: string): Promise<boolean> {
    return (await this.options.store.getRun(runId))?.status === 'queued'
  }

  private async cancelCompensating(runId: string, reason: string): Promise<void> {
    const receipt = await deliverSignal(
      this.signalDeps(),
      { runId, name: CANCEL_SIGNAL },
      { reason },
      CANCEL_SIGNAL,
    ).catch(async (error: unknown) => {
      if (!RunTerminalError.is(error)) throw error
      const status = (error.details as { status?: string }).status
      const successor = status === 'continued' ? await successorOf(this.options.store, runId) : null
      if (successor !== null) return { successor }
      throw notCancellable(runId, status)
    })
    // The run continued as new: the latest run of its chain is the one to unwind.
    if ('successor' in receipt) return this.cancelCompensating(receipt.successor, reason)
    // Told even when the store calls it a duplicate: a retry after a lost acknowledgement is
    // one, and the turn running here may never have heard of the first (requestCancel is
    // idempotent; a busy turn reads its inbox only when it waits for a message).
    this.driver.turnOf(runId)?.requestCancel(reason)
  }

  private cancellationDeps(): CancellationDeps {
    return {
      options: this.options,
      committer: this.committer,
      onCancelled: async (id) => {
        // The cancelled run may be a child whose parent this engine runs: look again now.
        this.driver.wake(this.options.clock.now())
        this.driver.forget(id) // a cached turn of it would never resume
        const turn = this.driver.turnOf(id)
        if (turn !== undefined) turn.cancelled()
        else await this.emitCancelled(id)
        this.waiters.notify(id)
      },
    }
  }

  private signalDeps() {
    return { options: this.options, committer: this.committer, driver: this.driver }
  }

  private starterDeps() {
    return {
      options: this.options,
      registry: this.registry,
      committer: this.committer,
      driver: this.driver,
      events: this.events,
      queues: this.queues,
    }
  }
}

/** A cancel of a run that has already finished: refused, naming its status. */
function notCancellable(runId: string, status: string | undefined): RunTerminalError {
  return new RunTerminalError(
    `run "${runId}" already finished (${status}); it cannot be cancelled`,
    {
      details: { runId, status },
    },
  )
}
