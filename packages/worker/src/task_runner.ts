/**
 * Runs one delivered task: decodes its input, calls the step's handler with a step context,
 * heartbeats while it runs, aborts it at the attempt's `timeoutMs` or when the hold is lost,
 * and completes the task with the result or the error. Never throws: every outcome is a
 * result message (or, when the transport cannot take it, a log line and a hold that lapses).
 */
import { randomUUID } from 'node:crypto'
import type { StepContext, StepHandler } from '@cairn/core'
import type { Codec, Logger, ReceivedTask } from '@cairn/core/contracts'
import { StepTimeoutError } from '@cairn/core/errors'
import {
  DEFAULT_STEP_LOG_ENTRIES,
  runAsStep,
  StepLogBuffer,
  stepLogger,
  wireLogs,
  type HeartbeatMessage,
  type ResultMessage,
  type TaskMessage,
} from '@cairn/core/wire'
import { toWireError } from './wire_error.ts'

/** What a remote step's handler gets beyond the in-process StepContext. */
export interface RemoteStepContext extends StepContext {
  /** This attempt's task id (the same on every redelivery of the attempt). */
  readonly taskId: string
  /** Reports progress now (also sent on its own every `heartbeatIntervalMs`). */
  heartbeat(progress?: unknown): Promise<void>
}

export interface TaskRunnerDeps {
  workerId: string
  codec: Codec
  logger: Logger
  /** Aborted when the worker stops waiting for its running tasks. */
  stopping: AbortSignal
}

export async function runTask(
  received: ReceivedTask,
  handler: StepHandler<unknown, unknown> | undefined,
  deps: TaskRunnerDeps,
): Promise<void> {
  const task = received.message
  const startedAt = Date.now()
  if (handler === undefined) {
    // The transport delivered a step this worker does not serve: another worker may. A failed
    // hand-back is logged, never thrown: nothing awaits this task, and a rejection here would
    // be unhandled (the worker process would crash); the task's hold lapses instead.
    await received
      .handBack()
      .catch((error: unknown) =>
        deps.logger.error(
          { err: error, taskId: task.taskId, step: task.step },
          'could not hand back a task for a step this worker does not serve; it is delivered again when its hold lapses',
        ),
      )
    return
  }
  const abort = new AbortController()
  const stop = () => abort.abort(deps.stopping.reason)
  deps.stopping.addEventListener('abort', stop, { once: true })
  const timeout =
    task.timeoutMs === null
      ? null
      : setTimeout(
          () => abort.abort(new StepTimeoutError(task.step, task.timeoutMs as number)),
          task.timeoutMs,
        )
  const lines = new ReportedLines(task, deps.codec)
  const beat = async (progress?: unknown): Promise<void> => {
    const message = heartbeatOf(task, deps, progress)
    const logs = lines.sinceLastReport()
    if (logs !== undefined) message.logs = logs
    const state = await received.heartbeat(message)
    if (state === 'lost') abort.abort(new Error('the task was delivered to another worker'))
  }
  const beats = setInterval(() => {
    beat().catch((error: unknown) =>
      deps.logger.warn({ err: error, taskId: task.taskId }, 'heartbeat failed'),
    )
  }, task.heartbeatIntervalMs)
  let outcome: ResultMessage['outcome']
  try {
    const input = deps.codec.decode(task.input)
    const step = stepContextOf(task, abort.signal, beat, lines.buffer)
    const output = await raceAbort(
      Promise.resolve(runAsStep(step, () => handler(input, step))),
      abort.signal,
    )
    outcome = { status: 'completed', output: deps.codec.encode(output, 'output') }
  } catch (thrown) {
    outcome = { status: 'failed', error: toWireError(thrown, deps.codec) }
  } finally {
    clearInterval(beats)
    if (timeout !== null) clearTimeout(timeout)
    deps.stopping.removeEventListener('abort', stop)
  }
  const result = resultOf(task, deps.workerId, startedAt, outcome)
  // Every line still buffered: a heartbeat may have been dropped on its way.
  const logs = lines.all()
  if (logs !== undefined) result.logs = logs
  await send(received, result, deps.logger)
}

/**
 * The attempt's lines (`stepCtx.log`, `stepCtx.progress`): every report carries every line
 * still buffered (the engine merges each once, so reports stored out of order lose nothing) —
 * a heartbeat only when something was logged since the previous one, the result always — under
 * an id of this execution, so a redelivery of the task to this worker numbers its lines anew.
 */
class ReportedLines {
  readonly buffer: StepLogBuffer
  readonly #execution = randomUUID()
  #reported = ''

  constructor(task: TaskMessage, codec: Codec) {
    this.buffer = new StepLogBuffer({
      runId: task.runId,
      seq: task.seq,
      execution: 'worker', // the engine names the execution after the task, worker and id
      attempt: task.attempt,
      maxEntries: DEFAULT_STEP_LOG_ENTRIES,
      codec,
      now: Date.now,
    })
  }

  /** For a heartbeat: undefined when nothing changed since the last one. */
  sinceLastReport(): string | undefined {
    const pending = this.buffer.pending()
    if (pending === null) return undefined
    const newest = `${pending.entries.at(-1)?.i ?? -1}/${pending.progress?.p ?? -1}`
    if (newest === this.#reported) return undefined
    this.#reported = newest
    return wireLogs(pending, this.#execution)
  }

  /** For the result: every line still buffered. */
  all(): string | undefined {
    return wireLogs(this.buffer.pending(), this.#execution)
  }
}

/** A handler that ignores its signal still ends the attempt when the signal aborts. */
function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error)
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error)
    signal.addEventListener('abort', onAbort, { once: true })
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort)
        resolve(value)
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(error as Error)
      },
    )
  })
}

function stepContextOf(
  task: TaskMessage,
  signal: AbortSignal,
  heartbeat: (progress?: unknown) => Promise<void>,
  lines: StepLogBuffer,
): RemoteStepContext {
  return {
    log: stepLogger((level, message, fields) => lines.add(level, message, fields)),
    progress: (value) => lines.progress(value),
    runId: task.runId,
    stepName: task.step,
    seq: task.seq,
    // The same key as the step has in process: one per position, across attempts and redeliveries.
    idempotencyKey: `${task.runId}/${task.seq}`,
    attempt: task.attempt,
    signal,
    taskId: task.taskId,
    heartbeat,
  }
}

function heartbeatOf(task: TaskMessage, deps: TaskRunnerDeps, progress: unknown): HeartbeatMessage {
  const message: HeartbeatMessage = {
    v: 1,
    type: 'heartbeat',
    taskId: task.taskId,
    runId: task.runId,
    seq: task.seq,
    attempt: task.attempt,
    workerId: deps.workerId,
    at: Date.now(),
  }
  if (progress !== undefined) message.progress = deps.codec.encode(progress, 'progress')
  return message
}

function resultOf(
  task: TaskMessage,
  workerId: string,
  startedAt: number,
  outcome: ResultMessage['outcome'],
): ResultMessage {
  return {
    v: 1,
    type: 'result',
    taskId: task.taskId,
    runId: task.runId,
    seq: task.seq,
    attempt: task.attempt,
    workerId,
    startedAt,
    finishedAt: Math.max(startedAt, Date.now()),
    outcome,
  }
}

async function send(received: ReceivedTask, result: ResultMessage, logger: Logger): Promise<void> {
  try {
    await received.complete(result)
  } catch (error) {
    // The hold lapses and the task is delivered again; its result is recorded once either way.
    logger.error({ err: error, taskId: result.taskId }, 'could not send a result')
  }
}
