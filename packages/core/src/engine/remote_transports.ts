/**
 * The engine's transports (EngineOptions.transports), for remote steps: tasks are published
 * on them, and while this engine drives, their results are consumed into the runs' inboxes —
 * one `deliverMessage` per result, deduplicated by task id, group-committed, acknowledged to
 * the transport only once durable — or, when the attempt's turn still holds its run in memory
 * here, straight to that turn, which records it in one write (live_tasks.ts). A result for a run that finished or does not exist is
 * acknowledged and dropped (nothing waits for it); any other failure rejects the batch, which
 * the transport delivers again. Heartbeats keep the transport's hold; the engine does not store
 * them (docs/design/remote_steps.md).
 */
import { untilDeadline } from '../util/deadline.ts'
import type { Clock, TimerHandle } from '../contracts/clock.ts'
import type { Logger } from '../contracts/logger.ts'
import type {
  EngineTransport,
  TaskToPublish,
  WithdrawOutcome,
  WorkerReport,
} from '../contracts/transport.ts'
import { InvalidArgumentError, RunNotFoundError, RunTerminalError } from '../errors/index.ts'
import { LiveTasks } from '../execution/live_tasks.ts'
import { taskResultDedupeId, taskResultName } from '../execution/remote_task.ts'
import { assertIdentifier } from '../util/validate.ts'
import { appendOfReport, type ResultMessage, type TaskMessage } from '../wire/index.ts'
import type { StepLogSink } from './step_log_sink.ts'
import { deliverSignal, type SignalSenderDeps } from './signal_sender.ts'
import { workerInfo, type TaskQueueDepth, type WorkerInfo } from './worker_views.ts'
import { PublishBatcher } from './publish_batcher.ts'
import { FleetView } from './fleet_view.ts'

const FIRST_RECONNECT_MS = 1_000
const MAX_RECONNECT_MS = 60_000

/** How long the engine's close waits for each transport's own close. */
export const TRANSPORT_CLOSE_MS = 5_000

export class RemoteTransports {
  /** Attempts whose turn waits in memory here: their results skip the inbox (live_tasks.ts). */
  readonly live = new LiveTasks()
  private readonly byName: ReadonlyMap<string, EngineTransport>
  private readonly logger: Logger
  private readonly stepLogs: StepLogSink
  private readonly clock: Clock
  private consuming: Promise<void> | null = null
  private stopped = false
  /** Reconnection attempts scheduled for transports that could not be reached. */
  private readonly retries = new Set<TimerHandle>()
  /** Per transport: tasks published while a publish is in flight go together in the next. */
  private readonly batchers = new Map<string, PublishBatcher>()
  /** Transports opened (to consume, or to list the fleet): closed by stop. */
  private readonly opened = new Set<EngineTransport>()
  /** The live fleet as last read, for blocked runs (fleet_view.ts). */
  private readonly fleet: FleetView

  constructor(
    transports: Readonly<Record<string, EngineTransport>>,
    logger: Logger,
    clock: Clock,
    monotonic: () => number,
    stepLogs: StepLogSink,
  ) {
    this.byName = checkTransports(transports)
    this.stepLogs = stepLogs
    this.logger = logger
    this.clock = clock
    // Not read once stopped: a read then would open a transport stop() has closed.
    const read = (name: string, since: number) =>
      this.stopped ? Promise.resolve(null) : this.workersOn(name, since)
    this.fleet = new FleetView(read, clock, monotonic, logger)
  }

  has(name: string): boolean {
    return this.byName.has(name)
  }

  /**
   * Open every transport and consume its results into the store. Idempotent. A transport that
   * cannot be reached does not keep the engine from driving: the failure is logged and the
   * connection tried again (1 s, doubling to 1 min) until it works or the engine closes; its
   * remote steps wait meanwhile, their tasks published again by their checks.
   */
  start(deps: SignalSenderDeps): Promise<void> {
    this.stopped = false
    // The fleet as blocked runs see it, read from now on while the engine drives.
    if (this.byName.size > 0) this.fleet.start([...this.byName.keys()])
    this.consuming ??= Promise.all(
      [...this.byName].map(([name, transport]) => this.connect(deps, name, transport, 0)),
    ).then(() => {})
    return this.consuming
  }

  /**
   * The live fleet on every transport: each worker's newest announcement made within
   * `seenWithinMs`, by transport then worker id. Opens a transport that is not open yet (an
   * engine that does not drive can still list its workers).
   */
  async workers(seenWithinMs: number, now: number): Promise<WorkerInfo[]> {
    const listed: WorkerInfo[] = []
    for (const name of this.byName.keys())
      listed.push(...(await this.workersOn(name, now - seenWithinMs)))
    return listed
  }

  /**
   * Why no live worker can serve `step` with `requires` on `transport` (the run is blocked), or
   * null: one can, or the engine cannot tell yet (fleet_view.ts). Never waits for a read.
   */
  blockedReason(transport: string, step: string, requires: readonly string[]): string | null {
    return this.byName.has(transport) ? this.fleet.blockedReason(transport, step, requires) : null
  }

  /**
   * What waits on every transport, per step (EngineTransport.depth): for metrics. `stepNames`
   * resolve steps a transport keeps only as hashes.
   */
  async depth(now: number, stepNames: readonly string[]): Promise<TaskQueueDepth[]> {
    const rows: TaskQueueDepth[] = []
    for (const [name, transport] of this.byName) {
      await this.open(transport)
      for (const row of await transport.depth(now, stepNames))
        rows.push({ transport: name, ...row })
    }
    return rows
  }

  /** EngineTransport.withdraw on transport `name` ('unknown' for a name it does not have). */
  async withdraw(name: string, task: TaskMessage): Promise<WithdrawOutcome> {
    const transport = this.byName.get(name)
    if (transport === undefined) return 'unknown'
    await this.open(transport)
    return transport.withdraw(task)
  }

  private async workersOn(name: string, since: number): Promise<WorkerInfo[]> {
    const transport = this.byName.get(name)
    if (transport === undefined) return []
    await this.open(transport)
    return (await transport.workers(since)).map((message) => workerInfo(name, message))
  }

  /** Stop consuming and close every transport opened (after the driver drained). */
  async stop(): Promise<void> {
    this.stopped = true
    this.fleet.stop()
    for (const retry of this.retries) retry.cancel()
    this.retries.clear()
    this.consuming = null
    const opened = [...this.opened]
    this.opened.clear()
    for (const transport of opened) {
      const closing = transport.close().catch((error: unknown) => {
        this.logger.warn({ err: error, transport: transport.name }, 'closing a transport failed')
      })
      // A transport whose backend stopped answering (Redis, a database) must not hold the
      // engine's close, and with it a process's shutdown, for ever.
      if (!(await untilDeadline(closing, Date.now() + TRANSPORT_CLOSE_MS)))
        this.logger.error(
          { transport: transport.name, waitedMs: TRANSPORT_CLOSE_MS },
          'a transport did not close in time; the engine closes without it',
        )
    }
  }

  /**
   * Publish without waiting (publish_batcher.ts): the task is durable in the store already, and
   * a publish that fails is sent again by the step's next check (remote_step.ts).
   */
  publish(name: string, task: TaskToPublish): void {
    const transport = this.byName.get(name)
    if (transport === undefined) return
    let batcher = this.batchers.get(name)
    if (batcher === undefined) {
      batcher = new PublishBatcher(name, transport, this.logger)
      this.batchers.set(name, batcher)
    }
    batcher.publish(task)
  }

  private async open(transport: EngineTransport): Promise<void> {
    this.opened.add(transport)
    await transport.open()
  }

  /** One attempt to open `transport` and consume from it; on failure, the next is scheduled. */
  private async connect(
    deps: SignalSenderDeps,
    name: string,
    transport: EngineTransport,
    failures: number,
  ): Promise<void> {
    if (this.stopped) return
    try {
      await this.open(transport)
      await transport.consume((reports) => this.settle(deps, name, reports))
      if (failures > 0)
        this.logger.info({ transport: name }, 'transport reached: consuming results')
    } catch (error) {
      if (this.stopped) return
      const delayMs = Math.min(MAX_RECONNECT_MS, FIRST_RECONNECT_MS * 2 ** failures)
      this.logger.error(
        { err: error, transport: name, retryInMs: delayMs },
        'transport unreachable: its remote steps wait; trying again',
      )
      const retry = this.clock.setTimer(delayMs, () => {
        this.retries.delete(retry)
        void this.connect(deps, name, transport, failures + 1)
      })
      this.retries.add(retry)
    }
  }

  private async settle(
    deps: SignalSenderDeps,
    transport: string,
    reports: readonly WorkerReport[],
  ): Promise<void> {
    const results = reports.filter((r): r is ResultMessage => r.type === 'result')
    // A heartbeat's lines are stored as it comes (never failing the batch: a lost one is
    // sent again with the next report or the result).
    const lines = this.storeHeartbeatLogs(reports)
    const outcomes = await Promise.allSettled(
      results.map(async (result) => {
        if (!(await this.live.deliver(result))) await deliverResult(deps, result)
      }),
    )
    await lines
    const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected')
    if (failed === undefined) return
    this.logger.warn(
      { err: failed.reason, transport },
      'settling results failed; redelivered later',
    )
    throw failed.reason
  }

  private async storeHeartbeatLogs(reports: readonly WorkerReport[]): Promise<void> {
    const stored: Promise<boolean>[] = []
    for (const report of reports) {
      if (report.type !== 'heartbeat') continue
      const append = appendOfReport(report, this.stepLogs.maxEntries)
      if (append instanceof Error)
        this.logger.warn(
          { err: append, taskId: report.taskId, workerId: report.workerId },
          'a heartbeat carried malformed step log lines: they are not kept',
        )
      else if (append !== null) stored.push(this.stepLogs.append(append))
    }
    await Promise.all(stored)
  }
}

async function deliverResult(deps: SignalSenderDeps, result: ResultMessage): Promise<void> {
  try {
    await deliverSignal(
      deps,
      { runId: result.runId, name: taskResultName(result.seq) },
      result,
      taskResultDedupeId(result.taskId),
    )
  } catch (error) {
    // Nothing waits for it: the run finished (or was never there). Acknowledged, dropped.
    if (RunTerminalError.is(error) || RunNotFoundError.is(error)) return
    throw error
  }
}

function checkTransports(
  transports: Readonly<Record<string, EngineTransport>>,
): ReadonlyMap<string, EngineTransport> {
  if (transports === null || typeof transports !== 'object' || Array.isArray(transports))
    throw new InvalidArgumentError('transports must be an object of { name: transport }')
  const byName = new Map<string, EngineTransport>()
  for (const [name, transport] of Object.entries(transports)) {
    assertIdentifier(name, 'a transport name')
    if (
      transport === null ||
      typeof transport !== 'object' ||
      typeof transport.publish !== 'function' ||
      typeof transport.consume !== 'function'
    )
      throw new InvalidArgumentError(
        `transports.${name} must be an engine transport (transport.engine() of a Cairn transport)`,
      )
    byName.set(name, transport)
  }
  return byName
}
