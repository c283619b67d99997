/**
 * The in-process broker behind the memory transport: a task table with holds, a report queue
 * with acknowledgement, and the fleet's announcements. Messages cross it as JSON text and are
 * read back with the wire parser, as over a real broker, so nothing is shared by reference and a
 * poison message is refused where a real transport would refuse it. Time comes from a Clock, so
 * tests move holds and backoffs with a FakeClock.
 */
import type { Clock, TimerHandle } from '../contracts/clock.ts'
import type {
  ReceiveOptions,
  RefusedMessage,
  TaskDepth,
  TaskToPublish,
  WithdrawOutcome,
  WorkerReport,
} from '../contracts/transport.ts'
import { parseWireMessage, type AnnounceMessage, type TaskMessage } from '../wire/index.ts'
import { mergeTaskDepths, redeliveryRows } from '../wire/task_depths.ts'

interface TaskEntry {
  text: string
  taskId: string
  step: string
  requires: readonly string[]
  availableAt: number
  order: number
  holder: symbol | null
  /** Delivered to a worker at least once (withdraw then finds it `taken`). */
  delivered: boolean
  holdTimer: TimerHandle | null
  /** The current hold: a lapse timer acts only if its hold is still the current one. */
  hold: object | null
}

interface Waiter {
  options: ReceiveOptions
  holder: symbol
  resolve: (delivered: Delivered[]) => void
}

export interface Delivered {
  message: TaskMessage
  taskId: string
}

type ReportConsumer = (reports: readonly WorkerReport[]) => Promise<void>

export interface MemoryBrokerOptions {
  /** A rejected report batch is delivered again after this long (ms). Default 100. */
  redeliverAfterMs?: number
  /** Reports per batch. Default 100. */
  batchSize?: number
  onRefused?: (refused: RefusedMessage) => void
}

export class MemoryBroker {
  readonly #clock: Clock
  readonly #tasks = new Map<string, TaskEntry>()
  readonly #waiters = new Set<Waiter>()
  readonly #reports: string[] = []
  readonly #consumers: ReportConsumer[] = []
  readonly #announcements = new Map<string, AnnounceMessage>()
  /** Step → deliveries beyond a task's first (TaskDepth.redelivered). */
  readonly #redelivered = new Map<string, number>()
  readonly #redeliverAfterMs: number
  readonly #batchSize: number
  readonly #onRefused: (refused: RefusedMessage) => void
  #order = 0
  #nextConsumer = 0
  #pumping = false
  #inFlight = 0
  #idle: (() => void)[] = []

  constructor(clock: Clock, options: MemoryBrokerOptions = {}) {
    this.#clock = clock
    this.#redeliverAfterMs = options.redeliverAfterMs ?? 100
    this.#batchSize = options.batchSize ?? 100
    this.#onRefused = options.onRefused ?? (() => {})
  }

  publish(tasks: readonly TaskToPublish[]): void {
    for (const { message, delayMs } of tasks) {
      const availableAt = this.#clock.now() + Math.max(0, delayMs)
      if (this.#tasks.has(message.taskId)) continue // pending: one delivery per id
      this.#tasks.set(message.taskId, {
        text: JSON.stringify(message),
        taskId: message.taskId,
        step: message.step,
        requires: [...message.requires],
        availableAt,
        order: this.#order++,
        holder: null,
        delivered: false,
        holdTimer: null,
        hold: null,
      })
      const wait = availableAt - this.#clock.now()
      if (wait > 0) this.#clock.setTimer(wait, () => this.#serveWaiters())
    }
    this.#serveWaiters()
  }

  /** For tests of poison handling: raw text on the task stream, as a misbehaving producer sends it. */
  publishRaw(taskId: string, text: string, step: string): void {
    this.#tasks.set(taskId, {
      text,
      taskId,
      step,
      requires: [],
      availableAt: this.#clock.now(),
      order: this.#order++,
      holder: null,
      delivered: false,
      holdTimer: null,
      hold: null,
    })
    this.#serveWaiters()
  }

  receive(options: ReceiveOptions, holder: symbol): Promise<Delivered[]> {
    const now = this.take(options, holder)
    if (now.length > 0 || options.signal.aborted) return Promise.resolve(now)
    return new Promise((resolve) => {
      const waiter: Waiter = { options, holder, resolve }
      this.#waiters.add(waiter)
      options.signal.addEventListener(
        'abort',
        () => {
          if (this.#waiters.delete(waiter)) resolve([])
        },
        { once: true },
      )
    })
  }

  /** Holds and returns the ready tasks `options` allows, oldest due first. */
  take(options: ReceiveOptions, holder: symbol): Delivered[] {
    const now = this.#clock.now()
    const ready = [...this.#tasks.values()]
      .filter((entry) => entry.holder === null && entry.availableAt <= now)
      .filter((entry) => options.steps.includes(entry.step))
      .filter((entry) => entry.requires.every((need) => options.capabilities.includes(need)))
      .sort((a, b) => a.availableAt - b.availableAt || a.order - b.order)
    const delivered: Delivered[] = []
    for (const entry of ready) {
      if (delivered.length >= options.max) break
      const parsed = parseWireMessage(entry.text, { expect: ['task'] })
      if (!parsed.ok) {
        this.#tasks.delete(entry.taskId) // poison: acknowledged, reported, never delivered
        this.#onRefused({ refusal: parsed.refusal, stream: 'tasks' })
        continue
      }
      if (entry.delivered)
        this.#redelivered.set(entry.step, (this.#redelivered.get(entry.step) ?? 0) + 1)
      this.#hold(entry, holder, options.holdMs)
      delivered.push({ message: parsed.message, taskId: entry.taskId })
    }
    return delivered
  }

  /** Extends a hold; false when `holder` no longer holds the task. */
  extend(taskId: string, holder: symbol, holdMs: number): boolean {
    const entry = this.#tasks.get(taskId)
    if (entry === undefined || entry.holder !== holder) return false
    this.#hold(entry, holder, holdMs)
    return true
  }

  /** Removes a task `holder` still holds (completed). */
  release(taskId: string, holder: symbol): void {
    const entry = this.#tasks.get(taskId)
    if (entry === undefined || entry.holder !== holder) return
    entry.holdTimer?.cancel()
    this.#tasks.delete(taskId)
  }

  /** Tasks per step now (EngineTransport.depth): one row per task and per count, merged. */
  depth(): TaskDepth[] {
    const now = this.#clock.now()
    const tasks = [...this.#tasks.values()].map((entry): TaskDepth => {
      const held = entry.holder !== null
      const ready = !held && entry.availableAt <= now
      return {
        step: entry.step,
        ready: ready ? 1 : 0,
        delayed: !held && !ready ? 1 : 0,
        held: held ? 1 : 0,
        oldestReadyAgeMs: ready ? now - entry.availableAt : null,
        redelivered: 0,
      }
    })
    return mergeTaskDepths([...tasks, ...redeliveryRows(this.#redelivered)])
  }

  /** Removes a task no worker ever received (EngineTransport.withdraw). */
  withdraw(taskId: string): WithdrawOutcome {
    const entry = this.#tasks.get(taskId)
    if (entry === undefined) return 'unknown'
    if (entry.delivered) return 'taken'
    this.#tasks.delete(taskId)
    return 'withdrawn'
  }

  /** Makes a task `holder` holds ready again at once. */
  handBack(taskId: string, holder: symbol): void {
    const entry = this.#tasks.get(taskId)
    if (entry === undefined || entry.holder !== holder) return
    this.#unhold(entry)
  }

  /** Hands back every task `holder` holds (a worker closing). */
  handBackAll(holder: symbol): void {
    for (const entry of this.#tasks.values()) if (entry.holder === holder) this.#unhold(entry)
  }

  report(message: WorkerReport): void {
    this.#reports.push(JSON.stringify(message))
    this.#pump()
  }

  /** For tests of poison handling: raw text on the report stream. */
  reportRaw(text: string): void {
    this.#reports.push(text)
    this.#pump()
  }

  addConsumer(consumer: ReportConsumer): void {
    this.#consumers.push(consumer)
    this.#pump()
  }

  removeConsumer(consumer: ReportConsumer): Promise<void> {
    const index = this.#consumers.indexOf(consumer)
    if (index >= 0) this.#consumers.splice(index, 1)
    if (this.#inFlight === 0) return Promise.resolve()
    return new Promise((resolve) => this.#idle.push(resolve))
  }

  announce(text: string): void {
    const parsed = parseWireMessage(text, { expect: ['announce'] })
    if (!parsed.ok) {
      this.#onRefused({ refusal: parsed.refusal, stream: 'announcements' })
      return
    }
    this.#announcements.set(parsed.message.workerId, parsed.message)
  }

  workers(since: number): AnnounceMessage[] {
    return [...this.#announcements.values()]
      .filter((a) => a.at >= since && a.leaving !== true)
      .map((a) => structuredClone(a))
  }

  /** Pending tasks (ready or held), for tests and the dashboard of a test fleet. */
  pendingTasks(): number {
    return this.#tasks.size
  }

  #hold(entry: TaskEntry, holder: symbol, holdMs: number): void {
    entry.holdTimer?.cancel()
    const hold = {}
    entry.holder = holder
    entry.delivered = true
    entry.hold = hold
    entry.holdTimer = this.#clock.setTimer(holdMs, () => {
      if (entry.hold === hold && this.#tasks.get(entry.taskId) === entry) this.#unhold(entry)
    })
  }

  #unhold(entry: TaskEntry): void {
    entry.holdTimer?.cancel()
    entry.holdTimer = null
    entry.holder = null
    entry.hold = null
    this.#serveWaiters()
  }

  #serveWaiters(): void {
    for (const waiter of [...this.#waiters]) {
      const delivered = this.take(waiter.options, waiter.holder)
      if (delivered.length === 0) continue
      this.#waiters.delete(waiter)
      waiter.resolve(delivered)
    }
  }

  #pump(): void {
    if (this.#pumping || this.#consumers.length === 0 || this.#reports.length === 0) return
    this.#pumping = true
    const consumer = this.#consumers[
      this.#nextConsumer++ % this.#consumers.length
    ] as ReportConsumer
    const texts = this.#reports.splice(0, this.#batchSize)
    const batch: WorkerReport[] = []
    for (const text of texts) {
      const parsed = parseWireMessage(text, { expect: ['result', 'heartbeat'] })
      if (parsed.ok) batch.push(parsed.message)
      else this.#onRefused({ refusal: parsed.refusal, stream: 'reports' })
    }
    this.#inFlight += 1
    const delivered = batch.length === 0 ? Promise.resolve() : consumer(batch)
    delivered
      .then(
        () => {},
        () => {
          // Not acknowledged: delivered again later, to this or another consumer.
          const again = batch.map((report) => JSON.stringify(report))
          this.#clock.setTimer(this.#redeliverAfterMs, () => {
            this.#reports.push(...again)
            this.#pump()
          })
        },
      )
      .finally(() => {
        this.#inFlight -= 1
        this.#pumping = false
        if (this.#inFlight === 0) for (const resolve of this.#idle.splice(0)) resolve()
        this.#pump()
      })
  }
}
