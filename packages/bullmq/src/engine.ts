/**
 * The engine's half over BullMQ: publish adds one job per task (jobId = taskId, so a pending id
 * is not added twice); consume reads worker reports from a Redis Stream in batches
 * (report_stream.ts), holds the batch while the handler runs, acknowledges it when it resolves,
 * and gives it back for redelivery when it rejects.
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
import { Queue, type Job } from 'bullmq'
import type { Redis } from 'ioredis'
import {
  connect,
  quit,
  REMOVE_ON_COMPLETE,
  routeOf,
  redeliveredKey,
  routesKey,
  taskQueueName,
  wakeChannel,
  workersKey,
} from './layout.ts'
import type { ResolvedOptions } from './options.ts'
import { checkStreamSupport, ReportStream, type StreamReport } from './report_stream.ts'

/** BullMQ gives up on a job stalled more than maxStalledCount times; Cairn never does (see README). */
export const NEVER_GIVE_UP = 2 ** 31 - 1

type Handler = (reports: readonly WorkerReport[]) => Promise<void>

/** How often an engine forgets the report-group names of engines gone silent (ms). */
const FORGET_EVERY_MS = 60_000

export class BullmqEngineTransport implements EngineTransport {
  readonly name = 'bullmq'
  readonly #options: ResolvedOptions
  #client: Redis | null = null
  #opening: Promise<void> | null = null
  readonly #queues = new Map<string, Queue>()
  #handler: Handler | null = null
  /** The connection a blocking read waits on (it serves nothing else). */
  #blocking: Redis | null = null
  readonly #reports: ReportStream
  #loop: Promise<void> | null = null
  #batch: Promise<void> | null = null
  #closing = false

  constructor(options: ResolvedOptions) {
    this.#options = options
    this.#reports = new ReportStream(options.prefix, `engine:${randomUUID()}`)
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
    // The handler call in flight finishes and its batch is acknowledged; then the reads stop.
    await this.#batch
    this.#blocking?.disconnect() // ends a read waiting for reports
    await this.#loop
    await this.#giveBackOwn()
    this.#blocking = null
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
    try {
      await checkStreamSupport(client)
      await this.#reports.ensureGroup(client)
      const blocking = client.duplicate()
      blocking.on('error', this.#options.onError)
      this.#blocking = blocking
    } catch (error) {
      this.#handler = null // not consuming: a later consume() may try again
      throw error
    }
    this.#loop = this.#consume(client, handler)
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

  /**
   * Reads batches until closed: reports other engines left idle past their hold (or this one
   * gave back) first, when their time has come, then new ones. One batch at a time.
   */
  async #consume(client: Redis, handler: Handler): Promise<void> {
    let reclaimAt = 0
    let forgetAt = 0
    while (!this.#closing) {
      let batch: StreamReport[]
      try {
        const now = Date.now()
        batch = []
        if (now >= reclaimAt) {
          batch = await this.#reports.reclaim(
            client,
            this.#options.reportHoldMs,
            this.#options.reportBatchSize,
          )
          // Again at once while there is a backlog to take over; else after the stalled check.
          reclaimAt = batch.length > 0 ? now : now + this.#options.stalledIntervalMs
          if (now >= forgetAt) {
            forgetAt = now + FORGET_EVERY_MS
            await this.#reports.forgetSilent(client, this.#options.forgetWorkersAfterMs)
          }
        }
        if (batch.length === 0)
          batch = await this.#reports.read(
            this.#blockingConnection(),
            this.#options.reportBatchSize,
            Math.max(1, Math.min(this.#options.pollIntervalMs, reclaimAt - now)),
          )
      } catch (error) {
        if (this.#closing) break
        this.#options.onError(error)
        await new Promise((resolve) => setTimeout(resolve, 1_000))
        continue
      }
      if (batch.length === 0) continue
      if (this.#closing) break // read as the consumer closed: given back by close()
      this.#batch = this.#deliver(client, batch, handler).then((rejected) => {
        // A rejected batch is due again after redeliverAfterMs: look for it then.
        if (rejected) reclaimAt = Math.min(reclaimAt, Date.now() + this.#options.redeliverAfterMs)
      })
      await this.#batch
      this.#batch = null
    }
  }

  /** Hands one batch to the handler; true when it rejected (the batch is given back). */
  async #deliver(client: Redis, batch: StreamReport[], handler: Handler): Promise<boolean> {
    const reports: WorkerReport[] = []
    const good: string[] = []
    const poison: string[] = []
    for (const entry of batch) {
      const parsed = parseWireMessage(entry.text, { expect: ['result', 'heartbeat'] })
      if (parsed.ok) {
        reports.push(parsed.message)
        good.push(entry.id)
        continue
      }
      this.#options.onRefused({ refusal: parsed.refusal, stream: 'reports' })
      poison.push(entry.id) // acknowledged and deleted: never delivered again
    }
    await this.#reports.acknowledge(client, poison).catch(this.#options.onError)
    if (good.length === 0) return false
    const holdMs = this.#options.reportHoldMs
    const keep = setInterval(
      () => void this.#reports.keep(client, good).catch(this.#options.onError),
      Math.floor(holdMs / 3),
    )
    let acknowledged: boolean
    try {
      await handler(reports)
      acknowledged = true
    } catch {
      acknowledged = false
    } finally {
      clearInterval(keep)
    }
    // Held too long, a batch went to another engine too: settling it twice is idempotent.
    if (acknowledged) await this.#reports.acknowledge(client, good).catch(this.#options.onError)
    else
      await this.#reports
        .release(client, good, Math.max(0, holdMs - this.#options.redeliverAfterMs))
        .catch(this.#options.onError)
    return !acknowledged
  }

  /** At close: what this engine read and did not settle is made due for other engines at once. */
  async #giveBackOwn(): Promise<void> {
    const client = this.#client
    if (client === null || this.#handler === null || client.status !== 'ready') return
    try {
      const own = await this.#reports.ownPending(client, 10_000)
      await this.#reports.release(client, own, this.#options.reportHoldMs)
      if (own.length === 0) await this.#reports.leave(client)
    } catch (error) {
      this.#options.onError(error) // left idle: taken over after the hold
    }
  }

  #blockingConnection(): Redis {
    if (this.#blocking === null) throw new InvalidArgumentError('the bullmq transport is closed')
    return this.#blocking
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
