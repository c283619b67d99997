/**
 * A store-less worker: takes remote steps' tasks from a transport, runs their handlers and
 * sends back results. It knows nothing of runs, stores or engines beyond the wire format; its
 * module graph holds no store code (a test walks it).
 *
 *   const worker = createWorker({ transport, steps: [charge, ship], concurrency: 8 })
 *   await worker.start()
 *   process.once('SIGTERM', () => worker.close())
 */
import { hostname } from 'node:os'
import { createCodec } from '@cairn/core/codec'
import type { Codec, Logger, ReceivedTask, WorkerTransport } from '@cairn/core/contracts'
import { InvalidArgumentError } from '@cairn/core/errors'
import {
  checkCapabilities,
  PROTOCOL_VERSIONS,
  type AnnounceMessage,
  type WorkerConcurrency,
} from '@cairn/core/wire'
import { stepTable, type StepTable, type WorkerOptions } from './options.ts'
import { AdaptiveLimit, adaptiveSettings } from './adaptive_limit.ts'
import { LoadSampler } from './load_sampler.ts'
import { untilDeadline } from '@cairn/core/wire'
import { runTask } from './task_runner.ts'
import { defaultWorkerId } from './worker_id.ts'

export interface Worker {
  readonly id: string
  /** Attempts running now. */
  readonly inFlight: number
  /** How many attempts it takes at once now (moves with adaptive concurrency). */
  readonly limit: number
  /** Opens the transport, announces the worker and starts taking tasks. */
  start(): Promise<void>
  /**
   * Stops taking tasks, lets running ones finish for up to `drainMs` (default 10 000), then
   * aborts the rest (their handlers' signals) and hands them back; announces that it leaves and
   * closes the transport. Resolves within `drainMs` plus twice CLOSE_GRACE_MS (10 s) whatever
   * the transport does: what it could not send by then is logged at error and given up, and
   * delivered again when its hold lapses. Idempotent; during `start()`, that start ends
   * without taking tasks.
   */
  close(drainMs?: number): Promise<void>
}

/**
 * After the drain, how long each of close's last steps may take: the aborted attempts' results
 * with the leaving announcement, then the transport's close (its hand-backs, its connections).
 * A healthy transport needs milliseconds; one whose backend is down or unreachable would keep
 * a close waiting for ever (a receive or a write that never returns), so close gives up.
 */
export const CLOSE_GRACE_MS = 5_000

export function createWorker(options: WorkerOptions): Worker {
  return new StepWorker(options)
}

const CONSOLE_LOGGER: Logger = {
  debug: () => {},
  info: () => {},
  warn: (obj, msg) => console.warn(msg, obj),
  error: (obj, msg) => console.error(msg, obj),
}

class StepWorker implements Worker {
  readonly id: string
  readonly #transport: WorkerTransport
  readonly #steps: StepTable
  readonly #capabilities: readonly string[]
  /** The fixed limit, or null with adaptive concurrency. */
  readonly #fixed: number | null
  readonly #adaptive: AdaptiveLimit | null
  readonly #sampler = new LoadSampler()
  /** Most attempts running at once since the last adjustment (adaptive: was it saturated?). */
  #peak = 0
  #adjuster: NodeJS.Timeout | null = null
  readonly #holdMs: number
  readonly #announceEveryMs: number
  readonly #codec: Codec
  readonly #logger: Logger
  /** Attempts running now, and their task ids. */
  readonly #running = new Map<Promise<void>, string>()
  readonly #receiving = new AbortController()
  readonly #stopping = new AbortController()
  readonly #startedAt = Date.now()
  #starting: Promise<void> | null = null
  #loop: Promise<void> | null = null
  #announcer: NodeJS.Timeout | null = null
  #closed: Promise<void> | null = null
  #slotFreed: (() => void) | null = null

  constructor(options: WorkerOptions) {
    this.#transport = options.transport
    this.#steps = stepTable(options.steps)
    this.#capabilities =
      options.capabilities === undefined
        ? []
        : checkCapabilities(options.capabilities, 'createWorker: capabilities')
    const concurrency = options.concurrency
    if (concurrency === 'adaptive' || (typeof concurrency === 'object' && concurrency !== null)) {
      this.#fixed = null
      this.#adaptive = new AdaptiveLimit(adaptiveSettings(concurrency))
    } else {
      this.#fixed = positive(concurrency, 10, 'concurrency')
      this.#adaptive = null
    }
    this.#holdMs = positive(options.holdMs, 30_000, 'holdMs')
    // Engines count a worker live for 30 s after its announcement (fleet_view.ts): a longer
    // period would make it vanish between announcements, and its runs read blocked.
    this.#announceEveryMs = positive(options.announceEveryMs, 10_000, 'announceEveryMs', 10_000)
    this.#codec = options.codec ?? createCodec()
    this.#logger = options.logger ?? CONSOLE_LOGGER
    this.id = options.workerId ?? defaultWorkerId()
  }

  get inFlight(): number {
    return this.#running.size
  }

  get limit(): number {
    return this.#fixed ?? (this.#adaptive as AdaptiveLimit).limit
  }

  start(): Promise<void> {
    this.#starting ??= this.#start().catch((error: unknown) => {
      this.#starting = null // a worker started before its transport was up may start again
      throw error
    })
    return this.#starting
  }

  async #start(): Promise<void> {
    const closed = this.#receiving.signal
    try {
      await this.#transport.open()
      if (closed.aborted) return
      await this.#announce(false)
    } catch (error) {
      // Closed while it started (the transport closed under it): nothing to start, no failure.
      if (closed.aborted) return
      throw error
    }
    // A close during the opening or the announcement: no timer, no receive loop after it.
    if (closed.aborted) return
    this.#announcer = setInterval(() => {
      this.#announce(false).catch((error: unknown) =>
        this.#logger.warn({ err: error }, 'announce failed'),
      )
    }, this.#announceEveryMs)
    this.#announcer.unref()
    this.#startAdjusting()
    this.#loop = this.#receiveLoop()
  }

  close(drainMs = 10_000): Promise<void> {
    this.#closed ??= this.#close(drainMs)
    return this.#closed
  }

  /**
   * Every wait is bounded: a transport whose backend is down can leave a receive, a result or
   * its own close pending for ever (a query on a connection nobody answers, a command queued
   * until Redis comes back), and a worker that never exits is worse than a hold that lapses.
   */
  async #close(drainMs: number): Promise<void> {
    this.#stopTaking()
    await this.#drain(Date.now() + drainMs)
    // Past the drain: abort the handlers; each still completes its task (as failed), and the
    // transport's close hands back anything not completed.
    this.#stopping.abort(new Error('the worker is shutting down'))
    await this.#flush(Date.now() + CLOSE_GRACE_MS)
    await this.#closeTransport(Date.now() + CLOSE_GRACE_MS)
  }

  #stopTaking(): void {
    this.#receiving.abort()
    // A full worker's loop waits for a slot: let it see the abort now, not when a task ends.
    this.#wakeReceiver()
    if (this.#announcer !== null) clearInterval(this.#announcer)
    if (this.#adjuster !== null) clearInterval(this.#adjuster)
    this.#sampler.stop()
  }

  /** Until `deadline`: a start in progress ends, the receive loop ends, running attempts finish. */
  async #drain(deadline: number): Promise<void> {
    if (this.#starting !== null) await untilDeadline(this.#starting, deadline)
    if (this.#loop !== null && !(await untilDeadline(this.#loop, deadline)))
      this.#logger.warn(
        {},
        'a receive did not return by the end of the drain; what it takes is handed back',
      )
    await untilDeadline(Promise.allSettled(this.#running.keys()), deadline)
  }

  /** The aborted attempts' results, then the leaving announcement, until `deadline`. */
  async #flush(deadline: number): Promise<void> {
    if (!(await untilDeadline(Promise.allSettled(this.#running.keys()), deadline)))
      this.#logger.error(
        { taskIds: [...this.#running.values()] },
        'results not sent in time: given up; their tasks are delivered again when their holds lapse',
      )
    await untilDeadline(this.#announce(true), deadline) // missed: engines forget it in 30 s
  }

  /** The transport's close (it hands back what is still held), until `deadline`. */
  async #closeTransport(deadline: number): Promise<void> {
    const closing = this.#transport.close().catch((error: unknown) => {
      this.#logger.error({ err: error }, 'closing the transport failed')
    })
    if (!(await untilDeadline(closing, deadline)))
      this.#logger.error(
        {},
        'the transport did not close in time: given up; tasks it still holds are delivered again when their holds lapse',
      )
  }

  async #receiveLoop(): Promise<void> {
    const signal = this.#receiving.signal
    while (!signal.aborted) {
      const free = this.limit - this.#running.size
      if (free <= 0) {
        await new Promise<void>((resolve) => (this.#slotFreed = resolve))
        continue
      }
      let tasks: ReceivedTask[]
      try {
        tasks = await this.#transport.receive({
          steps: [...this.#steps.keys()],
          capabilities: this.#capabilities,
          max: free,
          holdMs: this.#holdMs,
          signal,
        })
      } catch (error) {
        this.#logger.error({ err: error }, 'receiving tasks failed; retrying in 1 s')
        await pause(1_000, signal)
        continue
      }
      for (const task of tasks) {
        if (this.#stopping.signal.aborted) this.#handBackLate(task)
        else this.#run(task)
      }
    }
  }

  /** Taken by a receive that returned after the drain: nobody runs it here, another worker may. */
  #handBackLate(task: ReceivedTask): void {
    task
      .handBack()
      .catch((error: unknown) =>
        this.#logger.error(
          { err: error, taskId: task.message.taskId },
          'could not hand back a task received after the drain; it is delivered again when its hold lapses',
        ),
      )
  }

  #run(task: ReceivedTask): void {
    const handler = this.#steps.get(task.message.step)
    const running = runTask(task, handler, {
      workerId: this.id,
      codec: this.#codec,
      logger: this.#logger,
      stopping: this.#stopping.signal,
    }).finally(() => {
      this.#running.delete(running)
      this.#wakeReceiver()
    })
    this.#running.set(running, task.message.taskId)
    this.#peak = Math.max(this.#peak, this.#running.size)
  }

  /** Adaptive concurrency: sample and move the limit every period (adaptive_limit.ts). */
  #startAdjusting(): void {
    const adaptive = this.#adaptive
    if (adaptive === null) return
    this.#sampler.start()
    this.#adjuster = setInterval(() => {
      const before = adaptive.limit
      const sample = this.#sampler.sample(adaptive.settings.sampleEveryMs)
      const after = adaptive.adjust(sample, this.#peak)
      this.#peak = this.#running.size
      if (after === before) return
      this.#logger.debug({ from: before, to: after }, 'adaptive concurrency: limit moved')
      if (after > before) this.#wakeReceiver()
    }, adaptive.settings.sampleEveryMs)
    this.#adjuster.unref()
  }

  /** A slot opened (a task ended, or the limit rose): the receive loop may take more. */
  #wakeReceiver(): void {
    const freed = this.#slotFreed
    this.#slotFreed = null
    freed?.()
  }

  #announce(leaving: boolean): Promise<void> {
    const message: AnnounceMessage = {
      v: 1,
      type: 'announce',
      workerId: this.id,
      protocols: [...PROTOCOL_VERSIONS],
      host: hostname(),
      pid: process.pid,
      runtime: `node ${process.versions.node}`,
      steps: [...this.#steps.keys()],
      capabilities: [...this.#capabilities],
      concurrency: this.#concurrencyReport(),
      inFlight: this.#running.size,
      startedAt: this.#startedAt,
      at: Date.now(),
    }
    if (leaving) message.leaving = true
    return this.#transport.announce(message)
  }

  #concurrencyReport(): WorkerConcurrency {
    const adaptive = this.#adaptive
    if (adaptive === null) return { mode: 'fixed', limit: this.#fixed as number }
    const { min, max } = adaptive.settings
    return { mode: 'adaptive', limit: adaptive.limit, min, max }
  }
}

function positive(
  value: number | undefined,
  fallback: number,
  name: string,
  max = 2_147_483_647,
): number {
  if (value === undefined) return fallback
  if (!Number.isInteger(value) || value < 1 || value > max)
    throw new InvalidArgumentError(
      `${name} must be an integer from 1 to ${max}, got ${String(value)}`,
    )
  return value
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms)
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer)
        resolve()
      },
      { once: true },
    )
  })
}
