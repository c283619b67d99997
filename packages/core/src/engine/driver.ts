/**
 * Drives runs in this process: claims claimable runs (new work, due timers, expired leases)
 * up to `concurrency`, executes their turns, renews their leases, parks runs no engine can
 * run, and drains on shutdown. Everything runs inside the engine process; no separate timer
 * or recovery service exists.
 */
import type { RemoteTransports } from './remote_transports.ts'
import { oldestSlots } from '../store/run_priority.ts'
import type { InboxMessage, RunRecord } from '../contracts/records.ts'
import { ErrorCodes } from '../errors/index.ts'
import type { Deliverer } from '../execution/deliverer.ts'
import { History } from '../execution/history.ts'
import { Inbox } from '../execution/inbox.ts'
import { TurnContext } from '../execution/context.ts'
import { Turn, type TurnDeps, type TurnRun } from '../execution/turn.ts'
import type { TurnEnd } from '../execution/turn_end.ts'
import { failpoint } from '../util/failpoints.ts'
import { startChildRun } from './child_starter.ts'
import type { SingletonOptions } from '../execution/types.ts'
import type { Committer } from './committer.ts'
import type { StepLogSink } from './step_log_sink.ts'
import type { EventHub } from './events.ts'
import type { ResolvedEngineOptions } from './options.ts'
import type { WorkflowRegistry } from './registry.ts'
import type { StepRegistry } from './step_registry.ts'
import type { QueueRegistry } from './queue_registry.ts'
import type { LiveGrants } from '../execution/live_grants.ts'
import type { SlotLeases } from './slot_leases.ts'
import type { QueueRetries } from './queue_retries.ts'
import type { RunWaiters, TerminalOutcome } from './run_waiters.ts'
import { LeaseKeeper } from './lease_keeper.ts'
import { ParkSweeper } from './park_sweeper.ts'
import type { DrivingJob } from './due_loop.ts'
import { PollSchedule } from './poll_schedule.ts'
import { emitRecovered } from './recovery_events.ts'
import { OrphanAdopter } from './orphan_adopter.ts'
import {
  claimedRunLoaderDeps,
  loadClaimedRun,
  type ClaimedRunLoaderDeps,
} from './claimed_run_loader.ts'
import { runAsBody } from '../scope/current_context.ts'
import { deadLetterCreate, type DeadLetterDeps } from './dead_letters.ts'
import { endDead, pastRecoveryBound, type DeadRunDeps } from './dead_runs.ts'
import { tracing } from '../execution/tracing_hooks.ts'
import { RunCache } from './run_cache.ts'

/**
 * After a drain's deadline, how long the hand-backs and queued writes are waited for without
 * the store taking a batch. A healthy store needs milliseconds; a down one would retry them
 * forever.
 */
export const DRAIN_FLUSH_MS = 5_000

export interface DriverDeps {
  options: ResolvedEngineOptions
  registry: WorkflowRegistry
  steps: StepRegistry
  queues: QueueRegistry
  /** Queued steps waiting in memory for a slot (live_grants.ts). */
  liveGrants: LiveGrants
  slotLeases: SlotLeases
  /** Timers granting rate-limited queues when their rate allows (queue_retries.ts). */
  queueRetries: QueueRetries
  /**
   * Jobs that run while driving and claim due work of their own: the event accumulators'
   * firer (event_batch_firer.ts) and the schedules' (schedule_firer.ts). A drain stops them
   * and waits for a pass in flight.
   */
  jobs: readonly DrivingJob[]
  committer: Committer
  /** Where running steps' lines go live. */
  stepLogs: StepLogSink
  deliverer: Deliverer
  events: EventHub
  waiters: RunWaiters
  /** A run ended cancelled by its own turn (execution timeout): cancel its children. */
  cancelChildren(runId: string, reason: string): Promise<unknown>
  /** Where remote steps' tasks are published. */
  remote: RemoteTransports
}

export class Driver {
  private readonly turns = new Map<string, Turn>()
  private readonly deps: DriverDeps
  private readonly turnDeps: TurnDeps
  private readonly polls: PollSchedule
  private reserved = 0
  private driving = false
  private draining = false
  private readonly leases: LeaseKeeper
  private readonly parkSweeper: ParkSweeper
  private readonly loaderDeps: ClaimedRunLoaderDeps
  private readonly orphans: OrphanAdopter
  /** Runs this process is creating already leased to itself (engine.start with a free slot). */
  private readonly starting = new Set<string>()
  /** Runs a claim gave this process, their history being read before their turn starts. */
  private readonly loading = new Set<string>()
  /** claimRuns calls in flight: what they return is not known here yet. */
  private claiming = 0
  /** Runs claimed so far: every OLDEST_SHARE-th slot goes to the run due longest. */
  private claimedSlots = 0
  /**
   * The last claim filled every free slot, so more runs may be due, some of higher priority
   * than a run being started: a start leaves its run to the next claim instead of taking the
   * slot itself (tryReserve), until a claim finds fewer due runs than slots.
   */
  private backlog = false
  /**
   * Runs a drain handed back before they started (a claim or a start in flight), by id: one
   * run can be handed back twice (a claim in flight when the drain began takes the run a start
   * just handed back), and counts once.
   */
  private readonly handedBack = new Set<string>()
  // Engine timers never hold the process open; while driving, this one handle does, so a
  // worker process stays up until drain/close (like a server with a listening socket).
  private keepAlive: NodeJS.Timeout | null = null
  private stopWatching: (() => Promise<void>) | null = null
  private unparking = 0
  /** Cancellations of a timed-out run's children still under way. */
  private cascading = 0
  private readonly deadRuns: DeadRunDeps
  /** Suspended turns kept with their body paused, for this engine's next claim (run_cache.ts). */
  private readonly cache: RunCache

  constructor(deps: DriverDeps) {
    this.deps = deps
    const o = deps.options
    this.cache = new RunCache(o.maxCachedRuns)
    const deadLetters: DeadLetterDeps = {
      registry: deps.registry,
      codec: o.codec,
      logger: o.logger,
      fallback: o.deadLetterWorkflow,
    }
    this.deadRuns = {
      options: o,
      committer: deps.committer,
      events: deps.events,
      waiters: deps.waiters,
      deadLetters,
      wake: (at) => this.wake(at),
    }
    this.turnDeps = {
      deadLetter: (run, error) =>
        deadLetterCreate(deadLetters, run, 'failed', error, o.clock.now()),
      startChild: (request) =>
        startChildRun(
          {
            options: o,
            registry: deps.registry,
            committer: deps.committer,
            events: deps.events,
            wake: (at) => this.wake(at),
          },
          request,
        ),
      committer: deps.committer,
      stepLogs: deps.stepLogs,
      store: o.store,
      logger: o.logger,
      deliverer: deps.deliverer,
      codec: o.codec,
      clock: o.clock,
      events: deps.events,
      holdTimersUpToMs: o.holdTimersUpToMs,
      leaseMs: o.leaseMs,
      monotonic: o.monotonic,
      webhookUrl: o.webhookUrl,
      findStep: (name) => deps.steps.find(name),
      findQueue: (name) => deps.queues.find(name),
      hasTransport: (name) => deps.remote.has(name),
      publishTask: (transport, task) => deps.remote.publish(transport, task),
      withdrawTask: (transport, task) => deps.remote.withdraw(transport, task),
      blockedReason: (transport, step, requires) =>
        deps.remote.blockedReason(transport, step, requires),
      liveTasks: deps.remote.live,
      liveGrants: deps.liveGrants,
      leaseSlot: (queue, priority, fairnessKey, answer) =>
        deps.slotLeases.acquire(queue, priority, fairnessKey, answer),
      wakeEngine: (at) => this.wake(at),
      grantFreed: (queues) => deps.queueRetries.grantNow(queues),
      newestVersion: (workflow) => deps.registry.resolve(workflow).version,
      singletonOf: (workflow) =>
        deps.registry.resolve(workflow).options.singleton as SingletonOptions<unknown> | undefined,
      loadInbox: (runId, afterSeq) => o.store.loadInbox(runId, afterSeq),
      inboxPollMs: o.pollIntervalMs,
      onEnded: (turn, end) => this.onTurnEnded(turn, end),
      cacheRuns: o.maxCachedRuns > 0,
    }
    this.polls = new PollSchedule(o.clock, o.pollIntervalMs, () => this.poll())
    this.leases = new LeaseKeeper(o, () => this.turns.values())
    this.orphans = new OrphanAdopter({
      options: o,
      committer: deps.committer,
      events: deps.events,
      isDriving: () => this.isDriving,
      holds: (runId) => this.holds(runId),
      claimInFlight: () => this.claiming > 0,
      wake: (at) => this.wake(at),
    })
    this.parkSweeper = new ParkSweeper(
      o,
      deps.registry,
      (at) => this.wake(at),
      () => deps.queues.names(),
      deps.queueRetries,
    )
    const onCancelledUnstarted = (run: RunRecord) => {
      // A freed singleton slot may have promoted a waiter (rare ending: look at once).
      if (run.admission !== null) this.wake(o.clock.now())
      const ref = { runId: run.id, workflow: run.workflow, version: run.version }
      if (deps.events.wants('run:cancelled')) deps.events.emit('run:cancelled', ref)
      deps.waiters.notify(run.id)
    }
    this.loaderDeps = claimedRunLoaderDeps(o, deps.committer, onCancelledUnstarted)
  }

  get isDriving(): boolean {
    return this.driving && !this.draining
  }

  /** No poll or load in flight and every executing run is quiet (see Turn.quiet). */
  get quiet(): boolean {
    if (this.polls.busy || this.reserved > 0 || this.parkSweeper.busy || this.unparking > 0)
      return false
    if (this.deps.queueRetries.busy || this.deps.slotLeases.busy || this.jobsBusy) return false
    if (this.cascading > 0) return false
    for (const turn of this.turns.values()) if (!turn.quiet) return false
    return true
  }

  private get jobsBusy(): boolean {
    return this.deps.jobs.some((job) => job.busy)
  }

  /** Runs executing here now. */
  get activeRuns(): number {
    return this.turns.size
  }

  async start(): Promise<void> {
    if (this.driving) return
    const { store, clock, instanceId } = this.deps.options
    await store.reclaimOwned(instanceId, clock.now())
    await store.unpark(this.deps.registry.keys(), ErrorCodes.WORKFLOW_NOT_REGISTERED, clock.now())
    // A run parked for a step this process may now have tries again (it parks again if not).
    await store.unpark(this.deps.registry.keys(), ErrorCodes.STEP_NOT_REGISTERED, clock.now())
    await store.unpark(this.deps.registry.keys(), ErrorCodes.QUEUE_NOT_REGISTERED, clock.now())
    this.driving = true
    this.draining = false
    this.keepAlive ??= setInterval(() => {}, 1 << 30)
    this.leases.start()
    this.parkSweeper.start()
    for (const job of this.deps.jobs) job.start()
    await this.watchStore()
    this.polls.now()
  }

  // Push hints from the store (Postgres LISTEN/NOTIFY) make runs started elsewhere start here
  // in about a millisecond; polling stays the safety net, so a failure here only logs.
  private async watchStore(): Promise<void> {
    const { store, logger } = this.deps.options
    if (store.watchClaimable === undefined || this.stopWatching !== null) return
    try {
      this.stopWatching = await store.watchClaimable((at) => this.wake(at))
    } catch (error) {
      logger.warn({ err: error }, 'cairn: store wake-ups unavailable; polling only')
    }
  }

  /**
   * A workflow version was registered while driving: runs parked for lack of it (or of a step
   * this process may have) resume, and claimable runs of it are picked up now.
   */
  async registered(key: { workflow: string; version: string }): Promise<void> {
    const codes = [ErrorCodes.WORKFLOW_NOT_REGISTERED, ErrorCodes.STEP_NOT_REGISTERED]
    await this.unparkNow(
      [key],
      codes,
      'cairn: could not unpark runs of a newly registered workflow',
    )
  }

  /** A queue was registered while driving: runs parked for lack of a queue try again. */
  async queueRegistered(): Promise<void> {
    const keys = this.deps.registry.keys()
    const codes = [ErrorCodes.QUEUE_NOT_REGISTERED]
    await this.unparkNow(keys, codes, 'cairn: could not unpark runs after a queue was registered')
  }

  /** A step was registered while driving: runs parked for lack of a step try again. */
  async stepRegistered(): Promise<void> {
    const keys = this.deps.registry.keys()
    const codes = [ErrorCodes.STEP_NOT_REGISTERED]
    await this.unparkNow(keys, codes, 'cairn: could not unpark runs after a step was registered')
  }

  private async unparkNow(
    keys: readonly { workflow: string; version: string }[],
    codes: readonly string[],
    failure: string,
  ): Promise<void> {
    if (!this.driving || keys.length === 0) return
    const { store, clock, logger } = this.deps.options
    this.unparking += 1
    try {
      for (const code of codes) await store.unpark(keys, code, clock.now())
    } catch (error) {
      logger.error({ err: error, keys }, failure)
    } finally {
      this.unparking -= 1
    }
    this.polls.now()
  }

  /**
   * Reserve a slot for run `runId`, which this process is about to create leased to itself and
   * run at once. False when no slot is free, when the last claim filled every slot (due runs
   * may be waiting, of higher priority: the next claim chooses), or when this process is
   * already starting that id (a concurrent start of the same id: it creates nothing, and finds
   * the run).
   */
  tryReserve(runId: string): boolean {
    if (!this.isDriving || this.backlog) return false
    if (this.turns.size + this.reserved >= this.deps.options.concurrency) return false
    if (this.holds(runId)) return false
    this.reserved += 1
    this.starting.add(runId)
    return true
  }

  unreserve(runId: string): void {
    this.reserved -= 1
    this.starting.delete(runId)
    this.polls.capacityFreed()
  }

  /**
   * Run a run this process just created already leased (createRun applied, with its claim): it
   * has no history and no message it could have read, because nothing existed before it.
   */
  runReserved(run: TurnRun): void {
    this.starting.delete(run.id)
    if (!this.isDriving) {
      // Draining began while the create was in flight: the run goes back, unstarted.
      void this.handBack(run.id, run.epoch).finally(() => (this.reserved -= 1))
      return
    }
    this.reserved -= 1
    // A turn cached for an earlier run of this id (deleted, then started again) is not this one.
    this.forget(run.id)
    this.runTurn(run, History.empty, Inbox.empty(run.inboxSeq))
  }

  /**
   * Drop the cached turn of `runId`, if any: the run ended, was deleted, or a new run took its
   * id (a cached turn of it would never resume rightly, and holds memory until evicted).
   */
  forget(runId: string): void {
    this.cache.take(runId)?.dispose(() => new Error('the run moved on'))
  }

  /**
   * engine.start found `run` existing: if it is leased to this instance id but nobody here
   * executes it (a process with this id died holding it, or a start's acknowledgement was
   * lost), have it claimed now rather than at lease expiry (orphan_adopter.ts).
   */
  adoptOrphan(run: RunRecord): void {
    this.orphans.adopt(run)
  }

  /** This process executes `runId`, or is about to (creating it, or loading it after a claim). */
  private holds(runId: string): boolean {
    return this.turns.has(runId) || this.loading.has(runId) || this.starting.has(runId)
  }

  /** Something became claimable at `at` (a start elsewhere, a suspension): poll by then. */
  wake(at: number): void {
    if (this.isDriving) this.polls.at(at)
  }

  /** The local turn of a run, if this process executes it now. */
  turnOf(runId: string): Turn | undefined {
    return this.turns.get(runId)
  }

  /**
   * Stop claiming, let running turns finish or suspend for up to `timeoutMs`, then hand the
   * rest back to the store so another engine takes them at once.
   */
  async drain(timeoutMs: number): Promise<{ finished: boolean; released: number }> {
    if (!this.driving) return { finished: true, released: 0 }
    this.draining = true
    this.cache.clear()
    this.polls.stop()
    this.parkSweeper.stop()
    for (const job of this.deps.jobs) job.stop()
    this.handedBack.clear()
    const deadline = Date.now() + timeoutMs
    // Turns finish or suspend. A claim, a load or a create-with-claim still in flight is not
    // done either: what it took is handed back unstarted (runClaimed, runReserved), and waited
    // for here, so no turn starts after the drain returns.
    const busy = () =>
      this.turns.size > 0 || this.claiming > 0 || this.reserved > 0 || this.jobsBusy
    while (busy() && Date.now() < deadline) await delay(Math.min(20, deadline - Date.now()))
    const left = [...this.turns.values()]
    // The hand-backs and the writes still queued are waited for while the store takes them;
    // a store that took nothing for DRAIN_FLUSH_MS would retry them forever (closing then
    // rejects them, and the leases expire).
    const releases = Promise.all(left.map((turn) => turn.release()))
    const stallMs = timeoutMs === Infinity ? Infinity : DRAIN_FLUSH_MS
    if (await this.deps.committer.settle(stallMs))
      for (const handedBack of await releases)
        if (handedBack !== null) this.handedBack.add(handedBack)
    this.leases.stop()
    await this.stopWatching?.().catch(() => {})
    this.stopWatching = null
    this.driving = false
    if (this.keepAlive !== null) clearInterval(this.keepAlive)
    this.keepAlive = null
    const released = this.handedBack.size
    return { finished: released === 0 && left.length === 0, released }
  }

  /**
   * Give a run this engine holds but will not execute back to the store, claimable now, under
   * the epoch it holds (fenced: changes nothing if the run moved on). Past the deadline of a
   * drain whose engine then closed, this fails: the lease expires, or a restart under this
   * instance id takes the run at once.
   */
  private async handBack(runId: string, epoch: number): Promise<void> {
    const { clock, logger } = this.deps.options
    const committer = this.deps.committer
    const op = { type: 'releaseRun' as const, fence: { runId, epoch }, availableAt: clock.now() }
    try {
      if ((await committer.enqueue(op)).status === 'applied') this.handedBack.add(runId)
    } catch (error) {
      logger.warn({ err: error, runId }, 'cairn: could not hand a run back while draining')
    }
  }

  private async poll(): Promise<void> {
    if (!this.isDriving) return
    const free = this.deps.options.concurrency - this.turns.size - this.reserved
    if (free <= 0) return this.polls.whenCapacity()
    const { store, clock, instanceId, leaseMs, monotonic } = this.deps.options
    const runnable = this.deps.registry.keys()
    if (runnable.length === 0) return this.polls.after(this.deps.options.pollIntervalMs)
    let result
    const sentAt = monotonic()
    this.claiming += 1
    try {
      result = await store.claimRuns({
        owner: instanceId,
        now: clock.now(),
        leaseMs,
        limit: free,
        runnable,
        oldest: oldestSlots(this.claimedSlots, free),
      })
    } catch (error) {
      this.deps.options.logger.error(
        { err: error },
        'cairn: claiming runs failed; retrying at the poll interval',
      )
      throw error
    } finally {
      this.claiming -= 1
    }
    failpoint('P3')
    this.claimedSlots += result.claimed.length
    this.backlog = result.claimed.length === free
    emitRecovered(this.deps.events, result, instanceId)
    for (const run of result.claimed) void this.runClaimed(run, sentAt)
    // Adoptions that waited for this claim: what it took is now known (loading).
    this.orphans.claimSettled()
    if (result.claimed.length === free) return this.polls.whenCapacity()
    this.polls.afterPoll(result.nextAvailableAt, result.claimed.length)
  }

  /** `claimedAt`: monotonic time the claim was sent (TurnRun.leaseGrantedAt). */
  private async runClaimed(run: RunRecord, claimedAt: number): Promise<void> {
    this.reserved += 1
    this.loading.add(run.id)
    try {
      // Taken over once too often without moving on: ended, not loaded (dead_runs.ts).
      if (pastRecoveryBound(run, this.deps.options.maxRecoveryAttempts))
        return await endDead(this.deadRuns, run)
      const cached = this.cache.take(run.id)
      if (cached !== undefined && (await this.resumeCached(cached, run, claimedAt))) return
      const loaded = await loadClaimedRun(this.loaderDeps, run)
      if (loaded === null) return
      // Draining began while this claim or load was in flight: back, unstarted.
      if (!this.isDriving) return await this.handBack(run.id, run.leaseEpoch)
      // Run before (turns counts claims: claimed_run_state.ts), so its history replays.
      if (run.turns > 1) this.emitResumed(run, 'history')
      const turnRun = { ...run, epoch: run.leaseEpoch, leaseGrantedAt: claimedAt }
      this.runTurn(turnRun, loaded.history, loaded.inbox)
    } catch (error) {
      this.deps.options.logger.error(
        { err: error, runId: run.id },
        'cairn: could not load a claimed run; its lease will expire and it will be retried',
      )
    } finally {
      // After runTurn (the turn holds the run now) or any way out: never a gap between the two.
      this.loading.delete(run.id)
      this.reserved -= 1
    }
  }

  /**
   * Go on with a run's cached turn (run_cache.ts) under the lease just claimed: only the inbox
   * is read, and only when the claim says it holds messages the turn has not seen. False, the
   * turn dropped, when the run must replay instead: it moved on since the turn suspended
   * (Turn.canResume), or a compensating cancel arrived (Turn.cancelledIn).
   */
  private async resumeCached(turn: Turn, run: RunRecord, claimedAt: number): Promise<boolean> {
    const drop = (why: string) => turn.dispose(() => new Error(why))
    if (!turn.canResume(run)) {
      drop('the run moved on since this engine suspended it')
      return false
    }
    let messages: InboxMessage[] = []
    try {
      const store = this.deps.options.store
      if (run.inboxSeq > turn.inboxSeen) messages = await store.loadInbox(run.id, turn.inboxSeen)
    } catch (error) {
      drop('reading its inbox failed')
      throw error
    }
    if (turn.cancelledIn(messages)) {
      drop('cancelled with compensation: the run replays')
      return false
    }
    if (!this.isDriving) {
      drop('engine draining')
      await this.handBack(run.id, run.leaseEpoch)
      return true
    }
    this.turns.set(run.id, turn)
    // A turn span of its own: the resumed turn's step spans find it by run id (otel/open_spans.ts).
    const trace = { runId: run.id, workflow: run.workflow, version: run.version }
    tracing.current?.turn({ ...trace, epoch: run.leaseEpoch }, () => undefined)
    const claim = { epoch: run.leaseEpoch, leaseGrantedAt: claimedAt, recoveries: run.recoveries }
    this.emitResumed(run, 'cache')
    turn.resume(claim, messages)
    return true
  }

  private emitResumed(run: RunRecord, from: 'cache' | 'history'): void {
    const events = this.deps.events
    if (!events.wants('run:resumed')) return
    events.emit('run:resumed', {
      runId: run.id,
      workflow: run.workflow,
      version: run.version,
      from,
    })
  }

  /** Suspended runs kept in this engine's run cache now. */
  get cachedRuns(): number {
    return this.cache.size
  }

  private runTurn(run: TurnRun & { input?: string }, history: History, inbox: Inbox): void {
    const workflow = this.deps.registry.find(run.workflow, run.version)
    const timeoutMs = workflow?.options.executionTimeoutMs
    const limit =
      timeoutMs === undefined ? null : { timeoutMs, deadline: run.createdAt + timeoutMs }
    const turn = new Turn(
      this.turnDeps,
      run,
      history,
      workflow?.options.retry,
      inbox,
      limit,
      workflow?.options.searchAttributes,
    )
    this.turns.set(run.id, turn)
    if (workflow === undefined) return void turn.release()
    let input: unknown
    try {
      input = run.input === undefined ? undefined : this.deps.options.codec.decode(run.input)
    } catch (error) {
      return void turn.park({
        code: ErrorCodes.NOT_SERIALIZABLE,
        message: `the run's input cannot be decoded by this engine's codec: ${String(error)}`,
      })
    }
    const ctx = new TurnContext(turn)
    const body = () => runAsBody(ctx, () => workflow.body(ctx, input as never))
    const hooks = tracing.current
    if (hooks === null) return turn.begin(body, input)
    const trace = { runId: run.id, workflow: run.workflow, version: run.version, epoch: run.epoch }
    turn.begin(() => hooks.turn(trace, body), input)
  }

  /**
   * Cache a turn that suspended with its body kept — unless the engine stops driving, or a
   * later turn of the run already runs here (its claim's answer came before this suspend's).
   */
  private keepSuspended(turn: Turn): void {
    if (this.isDriving && !this.holds(turn.runId)) return this.cache.put(turn)
    turn.dispose(() => new Error('run suspended'))
  }

  private onTurnEnded(turn: Turn, end: TurnEnd): void {
    if (this.turns.get(turn.runId) === turn) this.turns.delete(turn.runId)
    if (end.kind === 'suspended' && end.resumable === true) this.keepSuspended(turn)
    tracing.current?.turnEnded(turn.runId, end.kind, end.kind === 'lost' ? end.reason : undefined)
    this.deps.waiters.notify(turn.runId, outcomeOf(end))
    if (end.kind === 'suspended' && end.wakeAt !== null) this.wake(end.wakeAt)
    // The successor was created claimable now: take it without waiting for the next poll.
    if (end.kind === 'continued') this.wake(this.deps.options.clock.now())
    if (end.kind === 'cancelled' && end.error !== undefined) {
      this.cascading += 1
      this.deps
        .cancelChildren(turn.runId, 'execution timeout')
        .catch((error: unknown) =>
          this.deps.options.logger.error(
            { err: error, runId: turn.runId },
            'cairn: could not cancel the children of a timed-out run; cancel it again to finish',
          ),
        )
        .finally(() => (this.cascading -= 1))
    }
    // The ending's freed singleton slot promoted queued runs: claimable now.
    if (promotedWaiters(end)) this.wake(this.deps.options.clock.now())
    // A child's outcome went to its parent's inbox with this ending: the parent may run here
    // (waiting: claim it now; busy: it reads its inbox).
    if (turn.parent !== null && isTerminal(end)) {
      this.wake(this.deps.options.clock.now())
      this.turns.get(turn.parent.runId)?.inboxChanged()
    }
    if (end.kind === 'lost')
      this.deps.options.logger.warn(
        { runId: turn.runId, reason: end.reason },
        'cairn: lost a run lease',
      )
    this.polls.capacityFreed()
  }
}

function isTerminal(end: TurnEnd): boolean {
  return (
    end.kind === 'completed' ||
    end.kind === 'failed' ||
    (end.kind === 'cancelled' && end.error !== undefined)
  )
}

/** What a waiter may learn without a store read: the outcome, when this turn wrote it. */
function outcomeOf(end: TurnEnd): TerminalOutcome | null {
  if (end.kind === 'completed' || end.kind === 'failed')
    return { status: end.kind, output: end.output, error: end.error }
  if (end.kind === 'cancelled' && end.error !== undefined)
    return { status: 'cancelled', output: null, error: end.error }
  if (end.kind === 'continued')
    return { status: 'continued', output: null, error: null, continuedTo: end.continuedTo }
  return null
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)))
}

/** The ending freed a singleton slot and the store promoted queued runs into it. */
function promotedWaiters(end: TurnEnd): boolean {
  return 'promoted' in end && end.promoted === true
}
