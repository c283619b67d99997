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
   * closes the transport. Idempotent.
   */
  close(drainMs?: number): Promise<void>
}

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
  readonly #running = new Set<Promise<void>>()
  readonly #receiving = new AbortController()
  readonly #stopping = new AbortController()
  readonly #startedAt = Date.now()
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

  async start(): Promise<void> {
    if (this.#loop !== null) return
    await this.#transport.open()
    await this.#announce(false)
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

  async #close(drainMs: number): Promise<void> {
    this.#receiving.abort()
    // A full worker's loop waits for a slot: let it see the abort now, not when a task ends.
    this.#wakeReceiver()
    if (this.#announcer !== null) clearInterval(this.#announcer)
    if (this.#adjuster !== null) clearInterval(this.#adjuster)
    this.#sampler.stop()
    await this.#loop
    const drained = await settleWithin([...this.#running], drainMs)
    if (!drained) {
      // Past the drain: abort the handlers; each still completes its task (as failed), and the
      // transport's close hands back anything not completed.
      this.#stopping.abort(new Error('the worker is shutting down'))
      await Promise.allSettled([...this.#running])
    }
    await this.#announce(true).catch(() => {})
    await this.#transport.close()
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
      for (const task of tasks) this.#run(task)
    }
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
    this.#running.add(running)
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

/** True when every promise settled within `ms`. */
async function settleWithin(promises: Promise<unknown>[], ms: number): Promise<boolean> {
  if (promises.length === 0) return true
  let timer: NodeJS.Timeout | undefined
  const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)))
  const done = Promise.allSettled(promises).then(() => true as const)
  const result = await Promise.race([done, timedOut])
  clearTimeout(timer)
  return result
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
