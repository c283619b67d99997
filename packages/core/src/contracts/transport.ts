/**
 * The Transport contract: how a remote step's task reaches a worker and its result comes back
 * (docs/design/remote_steps.md). Types only. Every transport runs the transport conformance
 * suite of `@cairn/conformance`.
 *
 * Ground rules for implementers:
 * - **The store is the truth, the transport a hint.** Every task exists in the store before it
 *   is published and is settled there by a conditional write; a transport may lose, repeat or
 *   reorder a message, and the engine republishes what the store says is unsettled. What a
 *   transport must not do is hand one task to two workers at once while the first still holds it
 *   (heartbeats current), or drop a result a handler has not acknowledged.
 * - **At least once.** A published task is delivered until a worker completes it or it is
 *   dropped as poison; a result or heartbeat is delivered to engines until a handler
 *   acknowledges it. Delivery is by `taskId`: one pending delivery per id.
 * - **Messages are wire format v1** (`@cairn/core/wire`). A transport carries them as JSON
 *   and reads what it receives with `parseWireMessage`; a message that is refused (poison) is
 *   acknowledged and reported through `onRefused`, never redelivered forever, never a crash.
 * - Durations are relative (`delayMs`, `holdMs`), so engine, broker and worker clocks need not
  agree; `workers(since)` compares announcements' own `at` (the workers' clocks).
 * - Two halves, because a worker process must not load the engine: an engine holds an
 *   `EngineTransport`, a worker a `WorkerTransport`; a transport package offers both.
 */
import type {
  AnnounceMessage,
  HeartbeatMessage,
  ResultMessage,
  TaskMessage,
  WireRefusal,
} from '../wire/index.ts'

/**
 * A task to publish: the message, and how long to hold it back. A delay, not a time: the
 * engine's clock and the broker's may differ (another machine, a test's fake clock), and a task
 * due "now" must not wait for clocks to agree.
 */
export interface TaskToPublish {
  message: TaskMessage
  /** Not delivered before this many milliseconds after the publish (0: at once). */
  delayMs: number
}

/** What a worker sends that engines consume. */
export type WorkerReport = ResultMessage | HeartbeatMessage

/** A message a transport received and refused (poison), for logs and metrics. */
export interface RefusedMessage {
  refusal: WireRefusal
  /** Which stream it came from: `tasks`, `reports`, `announcements`. */
  stream: 'tasks' | 'reports' | 'announcements'
}

export interface TransportOptions {
  /** Called for each refused message; the message itself is dropped (acknowledged). */
  onRefused?: (refused: RefusedMessage) => void
}

/** The engine's half: publish tasks, consume results and heartbeats, see the fleet. */
export interface EngineTransport {
  /** The transport's name in config and on the run (`bullmq`, `db`, `memory`). */
  readonly name: string

  /**
   * Connects. Idempotent. Rejects when the broker cannot be reached (nothing consumed), leaving
   * nothing connected: calling it again tries again (the engine does, with back-off).
   */
  open(): Promise<void>

  /**
   * Stops consuming and disconnects. Reports a handler has not acknowledged stay with the
   * transport (redelivered to another engine). Resolves once no handler call is running.
   * Idempotent.
   */
  close(): Promise<void>

  /**
   * Makes tasks available to workers. Idempotent per `taskId`: publishing an id that is
   * already pending (published, not yet completed by a worker) does not add a second delivery.
   * Resolves once the transport holds every task (as durably as the broker keeps data: one that
   * loses them on restart is covered by the engine's republish from the store). Rejects: some
   * may be held; the caller publishes the same tasks again, which is safe.
   */
  publish(tasks: readonly TaskToPublish[]): Promise<void>

  /**
   * Starts delivering worker reports to `handler`, in batches (order within a task's attempt
   * is kept: heartbeats before its result). A batch is acknowledged when the handler's promise
   * resolves; when it rejects, each report of the batch is delivered again later, to this or
   * another engine. Heartbeats may be dropped under load; results are not. One consumer per
   * EngineTransport; a second call rejects with E_INVALID_ARGUMENT.
   */
  consume(handler: (reports: readonly WorkerReport[]) => Promise<void>): Promise<void>

  /**
   * The newest announcement of each worker made at or after `since` (epoch ms), whichever
   * engine heard it; workers whose newest announcement says `leaving` are left out.
   */
  workers(since: number): Promise<AnnounceMessage[]>

  /**
   * Takes a published task back if no worker ever received it, so none ever will (a remote
   * step's `pickupTimeoutMs`). Atomic against receive: exactly one of the two wins.
   * - `withdrawn`: it was pending (due or delayed) and never delivered; it is gone;
   * - `taken`: a worker holds it, or held it once (a hold that lapsed or was handed back
   *   counts: the task was picked up), and it is not completed yet;
   * - `unknown`: the transport has no such task — never published, completed (its result is
   *   on its way), dropped as poison, or lost by a broker that restarted empty.
   * The whole message is given so a transport can find the queue it went to.
   */
  withdraw(task: TaskMessage): Promise<WithdrawOutcome>

  /**
   * What waits on the transport now, per step, over every engine's tasks (for metrics): due
   * tasks no worker holds, delayed ones, held ones, and how long the oldest due one has waited;
   * and how many deliveries so far were repeats. A step with nothing pending but a count of
   * repeats has a row of zeros with that count.
   * A read of aggregates; `now` is the engine's clock (epoch ms), used only for the age where
   * the transport keeps times of its own clock. Steps are named as published; a step whose
   * name the transport keeps only as a hash is reported as `stepNames` resolves it, or `?`.
   */
  depth(now: number, stepNames: readonly string[]): Promise<TaskDepth[]>
}

/** One step's tasks on a transport (EngineTransport.depth). */
export interface TaskDepth {
  step: string
  /** Due, and no worker holds them: waiting for a worker. */
  ready: number
  /** Not due yet (published with a delay); null when the transport cannot count them. */
  delayed: number | null
  /** Held by a worker now; null when the transport cannot count them. */
  held: number | null
  /** How long the oldest ready task has been due (ms); null when none is ready or not known. */
  oldestReadyAgeMs: number | null
  /**
   * Deliveries of this step's tasks beyond each task's first (a hold that lapsed — a worker
   * killed or stalled —, a task handed back), counted by the broker since its data began: a
   * cumulative count, the same whichever engine reads it, that starts again at 0 when a broker
   * loses its data. Null when the transport cannot count them.
   */
  redelivered: number | null
}

/** What `EngineTransport.withdraw` found. */
export type WithdrawOutcome = 'withdrawn' | 'taken' | 'unknown'

/** What a worker asks for. */
export interface ReceiveOptions {
  /** The steps it serves: tasks of other steps are never delivered to it. */
  steps: readonly string[]
  /** Its capabilities: a task is delivered only if its `requires` are all among them. */
  capabilities: readonly string[]
  /** At most this many tasks (≥ 1). */
  max: number
  /**
   * How long a delivered task stays held without a heartbeat (ms); after that the transport
   * delivers it again, to any worker, with the same `taskId`.
   */
  holdMs: number
  /** Aborting ends the wait: `receive` resolves with what it has (possibly nothing). */
  signal: AbortSignal
}

/** A task delivered to this worker, held until completed, handed back, or its hold lapses. */
export interface ReceivedTask {
  readonly message: TaskMessage
  /**
   * Extends the hold by `holdMs` and forwards the heartbeat to engines. `lost`: the hold had
   * already lapsed (the task may be running elsewhere: the result will be refused if another
   * attempt's won; stop if you can).
   */
  heartbeat(message: HeartbeatMessage): Promise<'held' | 'lost'>
  /**
   * Sends the result to engines, then releases the task (in that order: a crash between leaves
   * the task delivered again and its result possibly twice, which the engine's settle records
   * once). Rejects: the result may or may not have been sent; the task stays held until its
   * hold lapses.
   */
  complete(result: ResultMessage): Promise<void>
  /** Gives the task back at once, without a result: it is delivered again to any worker. */
  handBack(): Promise<void>
}

/** The worker's half: receive tasks, send results and heartbeats, announce itself. */
export interface WorkerTransport {
  readonly name: string
  /** Connects. Idempotent. */
  open(): Promise<void>
  /**
   * Disconnects. Tasks still held are handed back first (the worker runtime completes or hands
   * back what it runs before it closes; this is the safety net). Idempotent.
   */
  close(): Promise<void>
  /**
   * Waits for tasks this worker may take, up to `max`; resolves as soon as at least one is
   * delivered, or with what it has when `signal` aborts. Each returned task is held by this
   * worker until completed, handed back, or `holdMs` without a heartbeat.
   */
  receive(options: ReceiveOptions): Promise<ReceivedTask[]>
  /**
   * Publishes an announcement to every engine (joining, periodically, and when leaving). An
   * announcement sharing no protocol version with these engines (`checkAnnouncedProtocols`) is
   * refused with E_PROTOCOL_UNSUPPORTED and not published, and from then on `receive` rejects
   * with it: a worker that cannot read the tasks is never handed one (`ProtocolGate`).
   */
  announce(message: AnnounceMessage): Promise<void>
}
