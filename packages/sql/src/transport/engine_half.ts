/**
 * The engine's half of the db transport: publish inserts task rows (one per pending task id),
 * consume claims report rows in batches (held while the handler runs, deleted once it
 * resolves, due again later when it rejects), workers reads the announcements table.
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
import { keyOf } from './keys.ts'
import type { ResolvedTuning } from './options.ts'
import type { TransportTables } from './tables.ts'
import { Wakeup } from './wake.ts'

type Handler = (reports: readonly WorkerReport[]) => Promise<void>

export class DbEngineTransport implements EngineTransport {
  readonly name = 'db'
  readonly #tables: () => Promise<TransportTables>
  readonly #tuning: ResolvedTuning
  #db: TransportTables | null = null
  #opening: Promise<void> | null = null
  #closing = false
  #handler: Handler | null = null
  #loop: Promise<void> | null = null
  #unlisten: (() => Promise<void>) | null = null
  readonly #wakeup = new Wakeup()
  readonly #stop = new AbortController()

  constructor(tables: () => Promise<TransportTables>, tuning: ResolvedTuning) {
    this.#tables = tables
    this.#tuning = tuning
  }

  open(): Promise<void> {
    this.#opening ??= (async () => {
      const db = await this.#tables()
      try {
        await db.ensureSchema()
      } catch (error) {
        await db.close().catch(() => {})
        throw error
      }
      this.#db = db
    })().catch((error: unknown) => {
      this.#opening = null // the next open() tries again (the engine retries it)
      throw error
    })
    return this.#opening
  }

  async close(): Promise<void> {
    if (this.#closing) return
    this.#closing = true
    this.#stop.abort()
    await this.#opening?.catch(() => {})
    await this.#loop
    await this.#unlisten?.().catch(this.#tuning.onError)
    await this.#db?.close()
    this.#db = null
  }

  async publish(tasks: readonly TaskToPublish[]): Promise<void> {
    const db = this.#connected()
    if (tasks.length === 0) return
    await db.insertTasks(
      tasks.map(({ message, delayMs }) => ({
        taskKey: keyOf(message.taskId),
        stepKey: keyOf(message.step),
        requires: [...message.requires].sort(),
        body: JSON.stringify(message),
        delayMs: Math.max(0, Math.floor(delayMs)),
      })),
    )
  }

  async consume(handler: Handler): Promise<void> {
    if (this.#handler !== null)
      throw new InvalidArgumentError('this transport already has a consumer')
    const db = this.#connected()
    this.#handler = handler
    try {
      this.#unlisten = await db.listen('reports', () => this.#wakeup.wake())
    } catch (error) {
      this.#handler = null // not consuming: a later consume() may try again
      throw error
    }
    this.#loop = this.#consume(db, handler)
  }

  /** Rows keep a hash of the step name: the names the engine knows resolve it, others are `?`. */
  async depth(_now: number, stepNames: readonly string[]): Promise<TaskDepth[]> {
    const names = new Map(stepNames.map((name) => [keyOf(name), name]))
    const rows = await this.#connected().depth()
    return mergeTaskDepths(
      rows.map(({ stepKey, ...counts }) => ({ step: names.get(stepKey) ?? '?', ...counts })),
    )
  }

  async withdraw(task: TaskMessage): Promise<WithdrawOutcome> {
    return this.#connected().withdrawTask(keyOf(task.taskId))
  }

  async workers(since: number): Promise<AnnounceMessage[]> {
    const db = this.#connected()
    const forgetBefore = Date.now() - this.#tuning.forgetWorkersAfterMs
    const live: AnnounceMessage[] = []
    const forget: string[] = []
    for (const { workerId, body } of await db.listWorkers()) {
      const parsed = parseWireMessage(body, { expect: ['announce'] })
      if (!parsed.ok) {
        forget.push(workerId)
        this.#tuning.onRefused({ refusal: parsed.refusal, stream: 'announcements' })
        continue
      }
      const message = parsed.message
      if (message.at < forgetBefore) forget.push(workerId)
      if (message.at >= since && message.leaving !== true) live.push(message)
    }
    if (forget.length > 0) await db.deleteWorkers(forget)
    return live.sort((a, b) => (a.workerId < b.workerId ? -1 : a.workerId > b.workerId ? 1 : 0))
  }

  async #consume(db: TransportTables, handler: Handler): Promise<void> {
    while (!this.#closing) {
      this.#wakeup.clear()
      const holder = randomUUID()
      let delivered: boolean
      try {
        delivered = await this.#deliverBatch(db, holder, handler)
      } catch (error) {
        if (this.#closing) break
        this.#tuning.onError(error)
        await this.#wakeup.wait(this.#tuning.pollIntervalMs, this.#stop.signal)
        continue
      }
      if (!delivered) await this.#wakeup.wait(this.#tuning.pollIntervalMs, this.#stop.signal)
    }
  }

  /** One batch: false when there was nothing to deliver. */
  async #deliverBatch(db: TransportTables, holder: string, handler: Handler): Promise<boolean> {
    const { reportBatchSize, reportHoldMs } = this.#tuning
    const rows = await db.claimReports(holder, reportBatchSize, reportHoldMs)
    if (rows.length === 0) return false
    const reports: WorkerReport[] = []
    for (const row of rows) {
      const parsed = parseWireMessage(row.body, { expect: ['result', 'heartbeat'] })
      if (parsed.ok) reports.push(parsed.message)
      else {
        this.#tuning.onRefused({ refusal: parsed.refusal, stream: 'reports' })
        await db.deleteReport(row.id)
      }
    }
    if (reports.length === 0) return true
    const extend = setInterval(
      () => void db.extendReports(holder, reportHoldMs).catch(this.#tuning.onError),
      Math.floor(reportHoldMs / 3),
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
    if (acknowledged) await db.deleteReports(holder)
    else await db.delayReports(holder, this.#tuning.redeliverAfterMs)
    return true
  }

  #connected(): TransportTables {
    if (this.#db === null || this.#closing)
      throw new InvalidArgumentError(
        this.#closing ? 'the db transport is closed' : 'open() the db transport first',
      )
    return this.#db
  }
}
