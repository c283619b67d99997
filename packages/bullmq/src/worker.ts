/**
 * The worker's half over BullMQ. `receive` takes jobs with `Worker.getNextJob(token, { block:
 * false })` from every task queue the worker may serve (see layout.ts), and waits, when there is
 * nothing, for a wake on the pub/sub channel, the next delayed task's time, the poll interval or
 * the signal. The hold is the job's lock: `holdMs` its duration, a heartbeat extends it, a lock
 * gone means `lost`; a lapsed lock is found by BullMQ's stalled-job check and the job goes back
 * to wait (never to failed: maxStalledCount is set out of reach).
 */
import { randomUUID } from 'node:crypto'
import type { ReceiveOptions, ReceivedTask, WorkerTransport } from '@cairn/core/contracts'
import { InvalidArgumentError } from '@cairn/core/errors'
import {
  checkReceiveOptions,
  ProtocolGate,
  parseWireMessage,
  type AnnounceMessage,
  type HeartbeatMessage,
  type ResultMessage,
  type TaskMessage,
} from '@cairn/core/wire'
import { Queue, Worker, type Job } from 'bullmq'
import type { Redis } from 'ioredis'
import { untilDeadline } from '@cairn/core/wire'
import { NEVER_GIVE_UP } from './engine.ts'
import {
  connect,
  isNotHeld,
  quit,
  redeliveredKey,
  routesKey,
  servedQueues,
  wakeChannel,
  workersKey,
} from './layout.ts'
import { LookCache } from './look_cache.ts'
import type { ResolvedOptions } from './options.ts'
import { addReport } from './report_stream.ts'

interface Held {
  job: Job
  token: string
  queue: string
}

/**
 * How long each step of close() may take: the hand-backs (with an open still in progress),
 * then the connections' goodbyes. A Redis that is down or stopped answering would keep either
 * waiting for ever (commands wait through reconnects: maxRetriesPerRequest is null); past it
 * the hand-backs are given up (the locks lapse and the tasks are delivered again) and the
 * connections are dropped. Two of them fit well inside the worker's CLOSE_GRACE_MS.
 */
export const CLOSE_STEP_MS = 2_000

export class BullmqWorkerTransport implements WorkerTransport {
  readonly name = 'bullmq'
  readonly #options: ResolvedOptions
  readonly #id = randomUUID()
  readonly #gate = new ProtocolGate()
  #deliveries = 0
  #client: Redis | null = null
  #subscriber: Redis | null = null
  #opening: Promise<void> | null = null
  #closing = false
  /** Every connection open() made, connected or not: a close that gives up drops them. */
  readonly #made: Redis[] = []
  /** One manual BullMQ Worker per task queue this worker has taken from. */
  readonly #fetchers = new Map<string, Worker>()
  /** Tasks held now, by delivery token: handed back on close. */
  readonly #held = new Map<string, Held>()
  readonly #wakers = new Set<(queue: string) => void>()
  readonly #look: LookCache

  constructor(options: ResolvedOptions) {
    this.#options = options
    this.#look = new LookCache(options.pollIntervalMs)
  }

  /** A failed open is forgotten: the next open() tries again. */
  open(): Promise<void> {
    this.#opening ??= (async () => {
      const made = (client: Redis) => this.#made.push(client)
      this.#client = await connect(this.#options, 'worker', made)
      this.#subscriber = await connect(this.#options, 'worker-wake', made)
      this.#subscriber.on('message', (_channel: string, queue: string) => {
        this.#look.woke(queue)
        for (const wake of [...this.#wakers]) wake(queue)
      })
      await this.#subscriber.subscribe(wakeChannel(this.#options.prefix))
    })().catch(async (error: unknown) => {
      // Forgotten, and nothing left connected: the next open() tries again (a worker started
      // before Redis was up retries its start rather than failing for ever).
      this.#opening = null
      await quit(this.#subscriber)
      this.#subscriber = null
      await quit(this.#client)
      this.#client = null
      throw error
    })
    return this.#opening
  }

  /** Bounded (CLOSE_STEP_MS per step): a Redis that is down or stopped answering cannot hold it. */
  async close(): Promise<void> {
    if (this.#closing) return
    this.#closing = true
    const handBackBy = Date.now() + CLOSE_STEP_MS
    if (this.#opening !== null && !(await untilDeadline(this.#opening, handBackBy))) {
      this.#dropConnections() // an open still waiting for Redis: it fails
      return
    }
    for (const wake of [...this.#wakers]) wake('')
    await this.#handBackHeld(handBackBy)
    if (!(await untilDeadline(this.#closeConnections(), Date.now() + CLOSE_STEP_MS)))
      this.#dropConnections()
    this.#client = null
    this.#subscriber = null
  }

  /** The safety net for what the worker could not complete or hand back itself. */
  async #handBackHeld(deadline: number): Promise<void> {
    const held = [...this.#held.values()]
    if (held.length === 0) return
    const back = Promise.all(held.map((one) => this.#handBack(one).catch(this.#options.onError)))
    if (!(await untilDeadline(back, deadline)))
      this.#options.onError(
        new Error(
          `bullmq transport: handing back ${held.length} task(s) did not finish in ${CLOSE_STEP_MS} ms; given up, they are delivered again when their locks lapse`,
        ),
      )
  }

  async #closeConnections(): Promise<void> {
    // Forced: a fetcher runs no job of its own, and its blocking connection is only dropped.
    for (const fetcher of this.#fetchers.values())
      await fetcher.close(true).catch(this.#options.onError)
    this.#fetchers.clear()
    for (const reader of this.#delayedQueues.values())
      await reader.close().catch(this.#options.onError)
    this.#delayedQueues.clear()
    await quit(this.#subscriber)
    await quit(this.#client)
  }

  /** Drops every connection at once (ioredis destroys a socket its goodbye does not close). */
  #dropConnections(): void {
    for (const client of this.#made) client.disconnect()
    for (const fetcher of this.#fetchers.values()) void fetcher.close(true).catch(() => {})
  }

  async receive(options: ReceiveOptions): Promise<ReceivedTask[]> {
    this.#gate.assertAdmitted()
    checkReceiveOptions(options)
    const client = this.#connected()
    const { signal } = options
    let start = 0
    while (!signal.aborted && !this.#closing) {
      // Listen before looking, so a wake that comes while we look is not missed.
      let woken = false
      let wakeUp: () => void = () => {}
      let served: string[] = []
      const waker = (queue: string): void => {
        if (queue === '' || served.includes(queue) || !this.#routesKnown.has(queue)) {
          woken = true
          wakeUp()
        }
      }
      this.#wakers.add(waker)
      try {
        const routes = await this.#routes(client)
        this.#routesKnown = new Set(Object.keys(routes))
        served = servedQueues(routes, options.steps, options.capabilities)
        const got: ReceivedTask[] = []
        // Rotate the first queue, so one busy step does not starve the others.
        for (let i = 0; i < served.length && got.length < options.max; i++) {
          const queue = served[(start + i) % served.length] as string
          if (this.#look.isEmpty(queue)) continue // drained, and no wake since
          const generation = this.#look.generation
          if (await this.#take(queue, options, got)) this.#look.markEmpty(queue, generation)
        }
        start += 1
        if (got.length > 0) return got
        if (woken || signal.aborted || this.#closing) continue
        const waitMs = Math.min(this.#options.pollIntervalMs, await this.#nextDueIn(served))
        await new Promise<void>((resolve) => {
          const timer = setTimeout(() => {
            this.#look.expire() // the poll's safety net, or a delayed task's time
            done()
          }, waitMs)
          function done(): void {
            clearTimeout(timer)
            signal.removeEventListener('abort', done)
            resolve()
          }
          wakeUp = done
          signal.addEventListener('abort', done, { once: true })
          if (woken) done()
        })
      } finally {
        this.#wakers.delete(waker)
      }
    }
    return []
  }

  #routesKnown = new Set<string>()

  /** The routes hash, read again when older than the poll interval or a wake names a new queue. */
  async #routes(client: Redis): Promise<Record<string, string>> {
    const now = Date.now()
    const cached = this.#look.routes(now)
    if (cached !== null) return cached
    const routes = await client.hgetall(routesKey(this.#options.prefix))
    this.#look.setRoutes(routes, now)
    return routes
  }

  async announce(message: AnnounceMessage): Promise<void> {
    this.#gate.check(message)
    await this.#connected().hset(
      workersKey(this.#options.prefix),
      message.workerId,
      JSON.stringify(message),
    )
  }

  /** Takes up to what `options.max` leaves from one queue into `got`; true when it drained it. */
  async #take(queue: string, options: ReceiveOptions, got: ReceivedTask[]): Promise<boolean> {
    const fetcher = await this.#fetcher(queue, options.holdMs)
    while (got.length < options.max && !this.#closing) {
      const token = `${this.#id}:${++this.#deliveries}`
      const job = (await fetcher.getNextJob(token, { block: false })) as Job | undefined
      if (job === undefined) return true
      const parsed = parseWireMessage(job.data, { expect: ['task'] })
      if (!parsed.ok) {
        this.#options.onRefused({ refusal: parsed.refusal, stream: 'tasks' })
        // Acknowledged: kept in the failed set for inspection, never delivered again.
        await job
          .moveToFailed(new Error(`refused: ${parsed.refusal.reason}`), token, false)
          .catch(this.#options.onError)
        continue
      }
      // BullMQ counts moves to active: a second one is a redelivery (a lapsed lock, a hand-back).
      if (job.attemptsStarted > 1)
        await this.#connected()
          .hincrby(redeliveredKey(this.#options.prefix), parsed.message.step, 1)
          .catch(this.#options.onError) // a metric: never what decides the delivery
      // The lock was taken for the fetcher's lockDuration; a receive with another holdMs sets it.
      if (fetcher.opts.lockDuration !== options.holdMs) await job.extendLock(token, options.holdMs)
      const held: Held = { job, token, queue }
      this.#held.set(token, held)
      got.push(this.#received(held, parsed.message, options.holdMs))
    }
    return false
  }

  #received(held: Held, message: TaskMessage, holdMs: number): ReceivedTask {
    const { job, token } = held
    return {
      message,
      heartbeat: async (beat: HeartbeatMessage) => {
        const extended = await job.extendLock(token, holdMs)
        if (extended !== 1) {
          this.#held.delete(token)
          return 'lost'
        }
        await this.#report(beat)
        return 'held'
      },
      complete: async (result: ResultMessage) => {
        await this.#report(result)
        try {
          await job.moveToCompleted('', token, false)
        } catch (error) {
          // The hold lapsed: the task is delivered again; this result is settled once anyway.
          if (!isNotHeld(error)) throw error
        }
        this.#held.delete(token)
      },
      handBack: async () => {
        await this.#handBack(held)
      },
    }
  }

  async #handBack(held: Held): Promise<void> {
    this.#held.delete(held.token)
    try {
      await held.job.moveToWait(held.token)
    } catch (error) {
      if (!isNotHeld(error)) throw error
      return
    }
    await this.#client?.publish(wakeChannel(this.#options.prefix), held.queue)
  }

  async #report(message: ResultMessage | HeartbeatMessage): Promise<void> {
    // Not #connected(): a result still goes out while close() hands back the rest.
    const client = this.#client
    if (client === null) throw new InvalidArgumentError('open() the bullmq transport first')
    await addReport(client, this.#options.prefix, JSON.stringify(message))
  }

  async #fetcher(queue: string, holdMs: number): Promise<Worker> {
    let fetcher = this.#fetchers.get(queue)
    if (fetcher === undefined) {
      fetcher = new Worker(queue, null, {
        connection: this.#connected(),
        prefix: this.#options.prefix,
        autorun: false,
        lockDuration: holdMs,
        stalledInterval: this.#options.stalledIntervalMs,
        maxStalledCount: NEVER_GIVE_UP,
      })
      fetcher.on('error', this.#options.onError)
      // A stalled task went back to wait: wake the workers that may take it.
      fetcher.on('stalled', () => {
        this.#client?.publish(wakeChannel(this.#options.prefix), queue).catch(() => {})
      })
      this.#fetchers.set(queue, fetcher)
      await fetcher.startStalledCheckTimer()
    }
    return fetcher
  }

  /** Milliseconds until the earliest delayed task of these queues is due (Infinity: none). */
  async #nextDueIn(queues: readonly string[]): Promise<number> {
    let next = this.#look.nextDue()
    if (next === null) {
      const generation = this.#look.generation
      next = Number.POSITIVE_INFINITY
      for (const queue of queues) {
        const fetcher = this.#fetchers.get(queue)
        if (fetcher === undefined) continue
        const [job] = await this.#delayedOf(queue)
        if (job !== undefined) next = Math.min(next, job.timestamp + job.delay)
      }
      this.#look.setNextDue(next, generation)
    }
    return Math.max(1, next - Date.now() + 1)
  }

  readonly #delayedQueues = new Map<string, Queue>()

  async #delayedOf(queue: string): Promise<Job[]> {
    let reader = this.#delayedQueues.get(queue)
    if (reader === undefined) {
      reader = new Queue(queue, { connection: this.#connected(), prefix: this.#options.prefix })
      reader.on('error', this.#options.onError)
      this.#delayedQueues.set(queue, reader)
    }
    return reader.getDelayed(0, 0)
  }

  #connected(): Redis {
    if (this.#client === null || this.#closing)
      throw new InvalidArgumentError(
        this.#closing ? 'the bullmq transport is closed' : 'open() the bullmq transport first',
      )
    return this.#client
  }
}
