/**
 * The engine's half over BullMQ: publish adds one job per task (jobId = taskId, so a pending id
 * is not added twice); consume fetches the report queue in batches with a manual BullMQ Worker,
 * holds the batch (the job locks) while the handler runs, completes the jobs when it resolves,
 * and delays them for redelivery when it rejects.
 */
import { randomUUID } from 'node:crypto'
import type {
  EngineTransport,
  TaskDepth,
  TaskToPublish,
  WithdrawOutcome,
  WorkerReport,
} from '@cairn/core/contracts'
import { InvalidArgumentError } from '@cairn/core/errors'
import {
  mergeTaskDepths,
  redeliveryRows,
  parseWireMessage,
  type AnnounceMessage,
  type TaskMessage,
} from '@cairn/core/wire'
import { Queue, Worker, type Job } from 'bullmq'
import type { Redis } from 'ioredis'
import {
  connect,
  isNotHeld,
  quit,
  REMOVE_ON_COMPLETE,
  REPORTS_QUEUE,
  routeOf,
  redeliveredKey,
  routesKey,
  taskQueueName,
  wakeChannel,
  workersKey,
} from './layout.ts'
import type { ResolvedOptions } from './options.ts'

/** BullMQ gives up on a job stalled more than maxStalledCount times; Cairn never does (see README). */
export const NEVER_GIVE_UP = 2 ** 31 - 1

type Handler = (reports: readonly WorkerReport[]) => Promise<void>

export class BullmqEngineTransport implements EngineTransport {
  readonly name = 'bullmq'
  readonly #options: ResolvedOptions
  #client: Redis | null = null
  #opening: Promise<void> | null = null
  readonly #queues = new Map<string, Queue>()
  #handler: Handler | null = null
  #consumer: Worker | null = null
  #loop: Promise<void> | null = null
  #batch: Promise<void> | null = null
  #closing = false

  constructor(options: ResolvedOptions) {
    this.#options = options
  }

  /** A failed open is forgotten: the next open() tries again (the engine retries it). */
  open(): Promise<void> {
    this.#opening ??= (async () => {
      this.#client = await connect(this.#options, 'engine')
    })().catch((error: unknown) => {
      this.#opening = null
      throw error
    })
    return this.#opening
  }

  async close(): Promise<void> {
    if (this.#closing) return
    this.#closing = true
    await this.#opening?.catch(() => {})
    // The handler call in flight finishes and its batch is acknowledged; then the fetch stops.
    await this.#batch
    if (this.#consumer !== null) await this.#consumer.close().catch(this.#options.onError)
    await this.#loop
    for (const queue of this.#queues.values()) await queue.close().catch(this.#options.onError)
    this.#queues.clear()
    await quit(this.#client)
    this.#client = null
  }

  async publish(tasks: readonly TaskToPublish[]): Promise<void> {
    const client = this.#connected()
    const byQueue = new Map<string, TaskToPublish[]>()
    const routes: Record<string, string> = {}
    for (const task of tasks) {
      const name = taskQueueName(task.message.step, task.message.requires)
      routes[name] = JSON.stringify(routeOf(task.message.step, task.message.requires))
      const list = byQueue.get(name) ?? []
      list.push(task)
      byQueue.set(name, list)
    }
    if (byQueue.size === 0) return
    // Routes first: a worker that sees the wake finds the queue. Written on every publish, so a
    // Redis restarted without persistence learns them again from the engine's republish.
    await client.hset(routesKey(this.#options.prefix), routes)
    for (const [name, list] of byQueue) {
      await this.#queue(name).addBulk(
        list.map(({ message, delayMs }) => ({
          name: message.step,
          data: JSON.stringify(message),
          opts: {
            jobId: message.taskId,
            delay: Math.max(0, delayMs),
            ...REMOVE_ON_COMPLETE,
          },
        })),
      )
      await client.publish(wakeChannel(this.#options.prefix), name)
    }
  }

  async consume(handler: Handler): Promise<void> {
    if (this.#handler !== null)
      throw new InvalidArgumentError('this transport already has a consumer')
    const client = this.#connected()
    this.#handler = handler
    const consumer = new Worker(REPORTS_QUEUE, null, {
      connection: client,
      prefix: this.#options.prefix,
      autorun: false,
      lockDuration: this.#options.reportHoldMs,
      stalledInterval: this.#options.stalledIntervalMs,
      maxStalledCount: NEVER_GIVE_UP,
      drainDelay: 5,
    })
    consumer.on('error', this.#options.onError)
    try {
      await consumer.startStalledCheckTimer()
    } catch (error) {
      // Not consuming: a later consume() may try again.
      this.#handler = null
      await consumer.close().catch(() => {})
      throw error
    }
    this.#consumer = consumer
    this.#loop = this.#consume(consumer, handler)
  }

  async workers(since: number): Promise<AnnounceMessage[]> {
    const client = this.#connected()
    const key = workersKey(this.#options.prefix)
    const entries = await client.hgetall(key)
    const forgetBefore = Date.now() - this.#options.forgetWorkersAfterMs
    const live: AnnounceMessage[] = []
    const forget: string[] = []
    for (const [workerId, text] of Object.entries(entries)) {
      const parsed = parseWireMessage(text, { expect: ['announce'] })
      if (!parsed.ok) {
        forget.push(workerId)
        this.#options.onRefused({ refusal: parsed.refusal, stream: 'announcements' })
        continue
      }
      const message = parsed.message
      if (message.at < forgetBefore) forget.push(workerId)
      if (message.at >= since && message.leaving !== true) live.push(message)
    }
    if (forget.length > 0) await client.hdel(key, ...forget)
    return live.sort((a, b) => (a.workerId < b.workerId ? -1 : a.workerId > b.workerId ? 1 : 0))
  }

  /**
   * A job whose `attemptsStarted` is still 0 was never moved to active: it is removed (BullMQ
   * refuses to remove a locked job, so a worker taking it meanwhile wins). BullMQ has no single
   * "remove unless ever started": a worker that takes, runs and completes the task between the
   * read and the removal leaves nothing to remove, which reads as withdrawn — the attempt then
   * fails E_PICKUP_TIMEOUT and is retried although it ran, within at-least-once.
   */
  async withdraw(task: TaskMessage): Promise<WithdrawOutcome> {
    const queue = this.#queue(taskQueueName(task.step, task.requires))
    const job = (await queue.getJob(task.taskId)) as Job | undefined | null
    if (job === undefined || job === null) return 'unknown'
    if (job.attemptsStarted > 0 || job.processedOn !== undefined) return 'taken'
    return (await queue.remove(task.taskId)) === 1 ? 'withdrawn' : 'taken'
  }

  /**
   * Per task queue the routes hash lists (one per step and requirement set): BullMQ's job
   * counts, and the oldest waiting job's due time (added + delay). Summed per step, with the
   * workers' counts of redeliveries (a hash per step name).
   */
  async depth(now: number): Promise<TaskDepth[]> {
    const client = this.#connected()
    const routes = await client.hgetall(routesKey(this.#options.prefix))
    const rows: TaskDepth[] = []
    for (const [name, text] of Object.entries(routes)) {
      const step = stepOfRoute(text)
      if (step === null) continue
      const queue = this.#queue(name)
      const counts = await queue.getJobCounts('wait', 'paused', 'prioritized', 'delayed', 'active')
      const [oldest] = (await queue.getJobs(['wait', 'prioritized'], 0, 0, true)) as Job[]
      rows.push({
        step,
        ready: (counts.wait ?? 0) + (counts.paused ?? 0) + (counts.prioritized ?? 0),
        delayed: counts.delayed ?? 0,
        held: counts.active ?? 0,
        oldestReadyAgeMs:
          oldest === undefined ? null : Math.max(0, now - (oldest.timestamp + (oldest.delay ?? 0))),
        redelivered: 0,
      })
    }
    const repeats = await client.hgetall(redeliveredKey(this.#options.prefix))
    const counted = Object.entries(repeats).map(([step, n]) => [step, Number(n)] as const)
    return mergeTaskDepths([...rows, ...redeliveryRows(counted)])
  }

  async #consume(consumer: Worker, handler: Handler): Promise<void> {
    while (!this.#closing) {
      const token = randomUUID()
      let jobs: Job[]
      try {
        jobs = await this.#fetchBatch(consumer, token)
      } catch (error) {
        if (this.#closing) break
        this.#options.onError(error)
        await new Promise((resolve) => setTimeout(resolve, 1_000))
        continue
      }
      if (jobs.length === 0) continue
      if (this.#closing) {
        // Fetched as the consumer closed: give them back for another engine.
        await Promise.all(jobs.map((job) => job.moveToWait(token).catch(() => {})))
        break
      }
      this.#batch = this.#deliver(jobs, token, handler)
      await this.#batch
      this.#batch = null
    }
  }

  async #fetchBatch(consumer: Worker, token: string): Promise<Job[]> {
    const first = (await consumer.getNextJob(token, { block: true })) as Job | undefined
    if (first === undefined) return []
    const jobs = [first]
    while (jobs.length < this.#options.reportBatchSize) {
      const next = (await consumer.getNextJob(token, { block: false })) as Job | undefined
      if (next === undefined) break
      jobs.push(next)
    }
    return jobs
  }

  async #deliver(jobs: Job[], token: string, handler: Handler): Promise<void> {
    const reports: WorkerReport[] = []
    const good: Job[] = []
    for (const job of jobs) {
      const parsed = parseWireMessage(job.data, { expect: ['result', 'heartbeat'] })
      if (parsed.ok) {
        reports.push(parsed.message)
        good.push(job)
        continue
      }
      this.#options.onRefused({ refusal: parsed.refusal, stream: 'reports' })
      // Acknowledged, kept in the failed set for inspection, never delivered again.
      await job
        .moveToFailed(new Error(`refused: ${parsed.refusal.reason}`), token, false)
        .catch(this.#options.onError)
    }
    if (good.length === 0) return
    const holdMs = this.#options.reportHoldMs
    const extend = setInterval(
      () => {
        for (const job of good) job.extendLock(token, holdMs).catch(this.#options.onError)
      },
      Math.floor(holdMs / 3),
    )
    let acknowledged: boolean
    try {
      await handler(reports)
      acknowledged = true
    } catch {
      acknowledged = false
    } finally {
      clearInterval(extend)
    }
    const again = Date.now() + this.#options.redeliverAfterMs
    await Promise.all(
      good.map((job) =>
        (acknowledged
          ? job.moveToCompleted('', token, false)
          : job.moveToDelayed(again, token)
        ).catch((error: unknown) => {
          // Held too long (the batch went to another engine): its settle is idempotent.
          if (!isNotHeld(error)) this.#options.onError(error)
        }),
      ),
    )
  }

  #queue(name: string): Queue {
    let queue = this.#queues.get(name)
    if (queue === undefined) {
      queue = new Queue(name, { connection: this.#connected(), prefix: this.#options.prefix })
      queue.on('error', this.#options.onError)
      this.#queues.set(name, queue)
    }
    return queue
  }

  #connected(): Redis {
    if (this.#client === null || this.#closing)
      throw new InvalidArgumentError(
        this.#closing ? 'the bullmq transport is closed' : 'open() the bullmq transport first',
      )
    return this.#client
  }
}

/** The step of a routes-hash entry, or null for one that is not a route (left alone). */
function stepOfRoute(text: string): string | null {
  try {
    const route = JSON.parse(text) as { step?: unknown }
    return typeof route.step === 'string' ? route.step : null
  } catch {
    return null
  }
}
