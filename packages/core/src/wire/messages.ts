/**
 * The wire format between engines and workers, version 1 (docs/wire.md). Types only.
 *
 * Four messages travel over a transport, each a JSON object with `v` (the format version) and
 * `type`: a **task** (engine → worker: run this attempt of this step), a **heartbeat** and a
 * **result** (worker → engine), and an **announcement** (worker → engines: who I am, what I
 * serve). Payloads (a task's input, a result's output, a heartbeat's progress) are strings in
 * the engine codec's encoding (docs/codec.md: JSON with `$t` tags, or what the codec's
 * transform made of it), so the envelope is plain JSON any language reads, and a payload
 * round-trips exactly between two TypeScript ends.
 *
 * Numbers are integers (milliseconds since the epoch for times). Ids and names follow the
 * engine's identifier rule: 1 to 255 (names: 1 to 1,000) characters, no control characters, no
 * lone surrogates. A message that breaks any rule is refused whole (parse.ts), never repaired.
 */

/** The version of the message formats in this file. */
export type WireVersion = 1

/** One attempt of one remote step: engine → worker. */
export interface TaskMessage {
  v: WireVersion
  type: 'task'
  /** This attempt's id (task_id.ts); transports deduplicate by it. Also the idempotency key. */
  taskId: string
  runId: string
  /** The step's position in its run. */
  seq: number
  /** 1 for the first attempt; a retry is a new task with the next attempt. */
  attempt: number
  /** The registered step's name. */
  step: string
  /** The step's input, codec-encoded. */
  input: string
  /** Capabilities a worker must announce to take this task (empty: any worker of the step). */
  requires: string[]
  /** How long the attempt may run (ms); `null`: no limit. The worker aborts the handler then. */
  timeoutMs: number | null
  /** How often the worker must heartbeat while it runs the attempt (ms). */
  heartbeatIntervalMs: number
  /** When the engine dispatched the attempt (epoch ms). */
  dispatchedAt: number
  /** W3C `traceparent` of the step's span, when the engine traces. */
  traceparent?: string
}

/** An error as a worker reports it. */
export interface WireError {
  name: string
  message: string
  /** A stable code, e.g. `E_FATAL`, when the error has one. */
  code?: string
  stack?: string
  /**
   * `false`: never retry (FatalError); `true`: retry by the step's policy; absent: the
   * policy decides (retried while attempts remain).
   */
  retryable?: boolean
  /** With `retryable: true`: retry no sooner than this (ms). */
  retryAfterMs?: number
  /** The whole error (cause chain, fields), codec-encoded, from a worker with the codec. */
  detail?: string
}

/** The outcome of one attempt: worker → engine. */
export interface ResultMessage {
  v: WireVersion
  type: 'result'
  taskId: string
  runId: string
  seq: number
  attempt: number
  /** The worker that ran the attempt (its announcement's `workerId`). */
  workerId: string
  /** When the handler started and finished (epoch ms, the worker's clock). */
  startedAt: number
  finishedAt: number
  outcome: { status: 'completed'; output: string } | { status: 'failed'; error: WireError }
  /** The lines the handler logged that the engine may not have yet (step_log_wire.ts). */
  logs?: string
}

/** A worker running an attempt says so: worker → engine. */
export interface HeartbeatMessage {
  v: WireVersion
  type: 'heartbeat'
  taskId: string
  runId: string
  seq: number
  attempt: number
  workerId: string
  /** The worker's clock (epoch ms). */
  at: number
  /** What the handler reported with `stepCtx.heartbeat(progress)`, codec-encoded. */
  progress?: string
  /** The lines the handler logged since the last report was stored (step_log_wire.ts). */
  logs?: string
}

/** How many tasks a worker takes at once. */
export interface WorkerConcurrency {
  mode: 'fixed' | 'adaptive'
  /** The current limit. */
  limit: number
  /** The adaptive bounds. */
  min?: number
  max?: number
}

/** A worker joining, beating or leaving: worker → engines. */
export interface AnnounceMessage {
  v: WireVersion
  type: 'announce'
  workerId: string
  /** Every protocol version the worker speaks; an engine picks one it speaks too, or refuses. */
  protocols: number[]
  host: string
  /** The worker's process id, when it has one. */
  pid: number | null
  /** e.g. `node 24.21.0`, `python 3.13.1`. */
  runtime: string
  /** The steps it serves. */
  steps: string[]
  capabilities: string[]
  concurrency: WorkerConcurrency
  /** Attempts running now. */
  inFlight: number
  startedAt: number
  /** When this announcement was made (epoch ms); the fleet view ages announcements by it. */
  at: number
  /** True on the last announcement of a worker that is shutting down. */
  leaving?: boolean
}

export type WireMessage = TaskMessage | ResultMessage | HeartbeatMessage | AnnounceMessage
export type WireMessageType = WireMessage['type']
