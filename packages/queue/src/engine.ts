/**
 * The engine's half over a `@boringnode/queue` adapter: publish pushes one job per task (job id
 * and dedup id = task id, so a pending id is not added twice); consume pops the report queue in
 * batches, holds them (renewing) while the handler runs, completes them when it resolves and
 * retries them later when it rejects; a dead engine's batch is put back by another engine's
 * stalled-job recovery.
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
  parseWireMessage,
  type AnnounceMessage,
  type TaskMessage,
} from '@cairn/core/wire'
import type { QueueAdapter, QueueJobData } from './adapter.ts'
import { openAdapter, Pause } from './connection.ts'
import { parseRoute, queueNames, routeOf, TASK_JOB, WITHDRAWN, type QueueNames } from './layout.ts'
import type { ResolvedOptions } from './options.ts'
import { RegistryRecord, withEntry } from './registry.ts'

/** The adapter fails a job stalled more than this many times; Cairn never gives up on one. */
export const NEVER_GIVE_UP = 2 ** 31 - 1

/**
 * Routes this engine wrote are checked again after this long: a broker restarted empty lost
 * them, and workers learn a requirement set's queue only from the record.
 */
const ROUTES_TRUSTED_MS = 5_000

type Handler = (reports: readonly WorkerReport[]) => Promise<void>

export class QueueEngineTransport implements EngineTransport {
  readonly name = 'queue'
  readonly #options: ResolvedOptions
  readonly #names: QueueNames
  #adapter: QueueAdapter | null = null
  #opening: Promise<void> | null = null
  #closing = false
  #handler: Handler | null = null
  #loop: Promise<void> | null = null
  readonly #pause = new Pause()
  /** Task queue → when this engine last saw its route in the routes record. */
  readonly #routesSeen = new Map<string, number>()

  constructor(options: ResolvedOptions) {
    this.#options = options
    this.#names = queueNames(options.prefix)
  }

  /** A failed open is forgotten: the next open() tries again (the engine retries it). */
  open(): Promise<void> {
    this.#opening ??= (async () => {
      this.#adapter = await openAdapter(this.#options, `cairn-engine-${randomUUID()}`)
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
    this.#pause.wakeAll()
    // The batch in flight finishes and is acknowledged; then the loop stops.
    await this.#loop
    await this.#adapter?.destroy().catch(this.#options.onError)
    this.#adapter = null
  }

  async publish(tasks: readonly TaskToPublish[]): Promise<void> {
    const adapter = this.#connected()
    await this.#ensureRoutes(tasks.map((t) => t.message))
    await Promise.all(
      tasks.map(({ message, delayMs }) => {
        const job: QueueJobData = {
          id: message.taskId,
          name: TASK_JOB,
          payload: JSON.stringify(message),
          attempts: 0,
          dedup: { id: message.taskId },
        }
        const queue = this.#names.task(message.step, message.requires)
        return delayMs > 0 ? adapter.pushLaterOn(queue, job, delayMs) : adapter.pushOn(queue, job)
      }),
    )
  }

  async consume(handler: Handler): Promise<void> {
    if (this.#handler !== null)
      throw new InvalidArgumentError('this transport already has a consumer')
    this.#connected()
    this.#handler = handler
    this.#loop = this.#consume(handler)
  }

  async workers(since: number): Promise<AnnounceMessage[]> {
    const entries = await this.#registry('workers').read()
    const live: AnnounceMessage[] = []
    for (const text of Object.values(entries)) {
      const parsed = parseWireMessage(text, { expect: ['announce'] })
      if (!parsed.ok) {
        this.#options.onRefused({ refusal: parsed.refusal, stream: 'announcements' })
        continue
      }
      const message = parsed.message
      if (message.at >= since && message.leaving !== true) live.push(message)
    }
    return live.sort((a, b) => (a.workerId < b.workerId ? -1 : a.workerId > b.workerId ? 1 : 0))
  }

  /**
   * Read first: gone, withdrawn already, finished → unknown; held now, or ever picked up (a
   * hand-back counts an attempt, a lapsed hold a stall) → taken. Otherwise the job's payload is
   * swapped for WITHDRAWN with a dedup replace, which the adapter refuses on an active job: a
   * worker that popped it in between wins (`skipped` → taken); one that pops it after finds
   * WITHDRAWN and drops it. A job picked up and put back between the read and the swap (within
   * one round trip, against a hold of seconds) would read as withdrawn.
   */
  async withdraw(task: TaskMessage): Promise<WithdrawOutcome> {
    const adapter = this.#connected()
    const queue = this.#names.task(task.step, task.requires)
    const record = await adapter.getJob(task.taskId, queue)
    if (record === null || record.data.payload === WITHDRAWN) return 'unknown'
    if (record.status === 'completed' || record.status === 'failed') return 'unknown'
    if (record.status === 'active') return 'taken'
    if (record.data.attempts > 0 || (record.data.stalledCount ?? 0) > 0) return 'taken'
    const swapped = await adapter.pushOn(queue, {
      id: task.taskId,
      name: TASK_JOB,
      payload: WITHDRAWN,
      attempts: 0,
      dedup: { id: task.taskId, replace: true },
    })
    const outcome = swapped === undefined ? 'added' : swapped.outcome
    if (outcome === 'replaced') return 'withdrawn'
    // `added`: the job was completed meanwhile (the WITHDRAWN job added is dropped by a worker).
    return outcome === 'added' ? 'unknown' : 'taken'
  }

  /**
   * Per task queue in the routes record, the adapter's pending count. The adapter contract
   * counts nothing else: delayed and held tasks and the oldest one's age are not known (null).
   * A withdrawn task's job counts as ready until a worker pops and drops it.
   */
  async depth(): Promise<TaskDepth[]> {
    const adapter = this.#connected()
    const routes = await this.#registry('routes').read()
    const rows: TaskDepth[] = []
    for (const [queue, text] of Object.entries(routes)) {
      const route = parseRoute(text)
      if (route === null) continue
      rows.push({
        step: route.step,
        ready: await adapter.sizeOf(queue),
        delayed: null,
        held: null,
        oldestReadyAgeMs: null,
        // The adapter keeps a job's stalled count only while the job exists: no lasting count.
        redelivered: null,
      })
    }
    return mergeTaskDepths(rows)
  }

  /**
   * Routes before tasks: a worker that finds a task's queue in the record can pop it. Written
   * when this engine has not seen the route lately, so a broker restarted empty learns them
   * again from the engine's republish.
   */
  async #ensureRoutes(messages: readonly TaskMessage[]): Promise<void> {
    const now = Date.now()
    const wanted = new Map<string, string>()
    for (const { step, requires } of messages) {
      const queue = this.#names.task(step, requires)
      const seen = this.#routesSeen.get(queue)
      if (seen !== undefined && now - seen < ROUTES_TRUSTED_MS) continue
      wanted.set(queue, JSON.stringify(routeOf(step, requires)))
    }
    if (wanted.size === 0) return
    const missing = (entries: Record<string, string>): [string, string][] =>
      [...wanted].filter(([queue, route]) => entries[queue] !== route)
    await this.#registry('routes').update(
      (entries) => {
        const add = missing(entries)
        if (add.length === 0) return null
        return add.reduce((next, [queue, route]) => withEntry(next, queue, route), entries)
      },
      (entries) => missing(entries).length === 0,
    )
    for (const queue of wanted.keys()) this.#routesSeen.set(queue, now)
  }

  async #consume(handler: Handler): Promise<void> {
    let lastRecovery = 0
    let idleMs = 5
    while (!this.#closing) {
      try {
        const adapter = this.#connected()
        if (Date.now() - lastRecovery >= this.#options.stalledIntervalMs) {
          lastRecovery = Date.now()
          await adapter.recoverStalledJobs(
            this.#names.reports,
            this.#options.reportHoldMs,
            NEVER_GIVE_UP,
          )
        }
        const jobs = await this.#popBatch(adapter)
        if (jobs.length === 0) {
          await this.#pause.sleep(idleMs)
          idleMs = Math.min(this.#options.pollIntervalMs, idleMs * 2)
          continue
        }
        idleMs = 5
        await this.#deliver(adapter, jobs, handler)
      } catch (error) {
        if (this.#closing) break
        this.#options.onError(error)
        await this.#pause.sleep(1_000)
      }
    }
  }

  async #popBatch(adapter: QueueAdapter): Promise<QueueJobData[]> {
    const jobs: QueueJobData[] = []
    while (jobs.length < this.#options.reportBatchSize && !this.#closing) {
      const job = await adapter.popFrom(this.#names.reports)
      if (job === null) break
      jobs.push(job)
    }
    return jobs
  }

  async #deliver(adapter: QueueAdapter, jobs: QueueJobData[], handler: Handler): Promise<void> {
    const queue = this.#names.reports
    const reports: WorkerReport[] = []
    const good: string[] = []
    for (const job of jobs) {
      const parsed = parseWireMessage(job.payload, { expect: ['result', 'heartbeat'] })
      if (parsed.ok) {
        reports.push(parsed.message)
        good.push(job.id)
        continue
      }
      this.#options.onRefused({ refusal: parsed.refusal, stream: 'reports' })
      // Acknowledged and dropped: never delivered again.
      await adapter
        .failJob(job.id, queue, new Error(`refused: ${parsed.refusal.reason}`), true)
        .catch(this.#options.onError)
    }
    if (good.length === 0) return
    const renew = setInterval(
      () => void adapter.renewJobs(queue, good).catch(this.#options.onError),
      Math.floor(this.#options.reportHoldMs / 3),
    )
    let acknowledged: boolean
    try {
      await handler(reports)
      acknowledged = true
    } catch {
      acknowledged = false
    } finally {
      clearInterval(renew)
    }
    const again = new Date(Date.now() + this.#options.redeliverAfterMs)
    await Promise.all(
      good.map((id) =>
        (acknowledged
          ? adapter.completeJob(id, queue, true)
          : adapter.retryJob(id, queue, again)
        ).catch(this.#options.onError),
      ),
    )
  }

  #registry(id: 'routes' | 'workers'): RegistryRecord {
    return new RegistryRecord(this.#connected(), this.#names.registry, id)
  }

  #connected(): QueueAdapter {
    if (this.#adapter === null || this.#closing)
      throw new InvalidArgumentError(
        this.#closing ? 'the queue transport is closed' : 'open() the queue transport first',
      )
    return this.#adapter
  }
}
