/**
 * The worker's half of the db transport: receive claims due task rows of the worker's steps
 * whose requirements its capabilities meet (row locks skipped, so two workers never take one
 * task), waits for a NOTIFY, the next due time or the poll interval when there are none; a
 * claim's hold is `holder` + `held_until`, extended by heartbeats, lapsing by itself when the
 * worker goes silent (the next claim takes a lapsed row), ended by complete or hand-back.
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
import { keyOf } from './keys.ts'
import type { ResolvedTuning } from './options.ts'
import { GroupedWrites } from './grouped_writes.ts'
import type { CompletedTask, TransportTables } from './tables.ts'
import { Wakeup } from './wake.ts'

interface Hold {
  taskKey: string
  holder: string
}

export class DbWorkerTransport implements WorkerTransport {
  readonly name = 'db'
  readonly #tables: () => Promise<TransportTables>
  readonly #tuning: ResolvedTuning
  #db: TransportTables | null = null
  #opening: Promise<void> | null = null
  #closing = false
  #unlisten: (() => Promise<void>) | null = null
  readonly #wakeup = new Wakeup()
  readonly #gate = new ProtocolGate()
  /** Holds not yet completed or handed back, handed back on close. */
  readonly #held = new Map<string, Hold>()
  /** Results of tasks finishing together, written together (grouped_writes.ts). */
  #grouped: GroupedWrites<CompletedTask> | null = null

  constructor(tables: () => Promise<TransportTables>, tuning: ResolvedTuning) {
    this.#tables = tables
    this.#tuning = tuning
  }

  open(): Promise<void> {
    this.#opening ??= (async () => {
      const db = await this.#tables()
      try {
        await db.ensureSchema()
        this.#unlisten = await db.listen('tasks', () => this.#wakeup.wake())
      } catch (error) {
        await db.close().catch(() => {})
        throw error
      }
      this.#db = db
    })().catch((error: unknown) => {
      this.#opening = null // the next open() tries again
      throw error
    })
    return this.#opening
  }

  async close(): Promise<void> {
    if (this.#closing) return
    this.#closing = true
    this.#wakeup.wake()
    await this.#opening?.catch(() => {})
    const db = this.#db
    if (db === null) return
    if (this.#held.size > 0) await db.handBack([...this.#held.values()]).catch(this.#tuning.onError)
    this.#held.clear()
    await this.#unlisten?.().catch(this.#tuning.onError)
    await db.close()
    this.#db = null
  }

  async receive(options: ReceiveOptions): Promise<ReceivedTask[]> {
    this.#gate.assertAdmitted()
    checkReceiveOptions(options)
    const db = this.#connected()
    const stepKeys = options.steps.map(keyOf)
    const capabilities = [...options.capabilities].sort()
    for (;;) {
      if (options.signal.aborted || this.#closing) return []
      this.#wakeup.clear()
      const holder = randomUUID()
      const rows = await db.claimTasks({
        stepKeys,
        capabilities,
        max: options.max,
        holdMs: options.holdMs,
        holder,
      })
      const delivered: ReceivedTask[] = []
      for (const row of rows) {
        const parsed = parseWireMessage(row.body, { expect: ['task'] })
        if (!parsed.ok) {
          // Poison: deleted (acknowledged) and reported, never delivered.
          await db.deleteTask(row.taskKey)
          this.#tuning.onRefused({ refusal: parsed.refusal, stream: 'tasks' })
          continue
        }
        delivered.push(this.#received(parsed.message, { taskKey: row.taskKey, holder }, options))
      }
      if (delivered.length > 0) return delivered
      if (rows.length > 0) continue // only poison: look again at once
      const dueInMs = await db.nextDueInMs(stepKeys)
      const waitMs = Math.min(this.#tuning.pollIntervalMs, dueInMs ?? Infinity)
      await this.#wakeup.wait(waitMs, options.signal)
    }
  }

  async announce(message: AnnounceMessage): Promise<void> {
    this.#gate.check(message)
    await this.#connected().upsertWorker(message.workerId, JSON.stringify(message), message.at)
  }

  #received(message: TaskMessage, hold: Hold, options: ReceiveOptions): ReceivedTask {
    const db = this.#connected()
    const id = `${hold.taskKey}:${hold.holder}`
    this.#held.set(id, hold)
    return {
      message,
      heartbeat: async (beat: HeartbeatMessage) => {
        if (!(await db.extendTask(hold.taskKey, hold.holder, options.holdMs))) return 'lost'
        await db.insertReports([JSON.stringify(beat)])
        return 'held'
      },
      complete: async (result: ResultMessage) => {
        await this.#completions(db).add({ ...hold, report: JSON.stringify(result) })
        this.#held.delete(id)
      },
      handBack: async () => {
        await db.handBack([hold])
        this.#held.delete(id)
      },
    }
  }

  #completions(db: TransportTables): GroupedWrites<CompletedTask> {
    this.#grouped ??= new GroupedWrites((items) => db.completeTasks(items))
    return this.#grouped
  }

  #connected(): TransportTables {
    if (this.#db === null || this.#closing)
      throw new InvalidArgumentError(
        this.#closing ? 'the db transport is closed' : 'open() the db transport first',
      )
    return this.#db
  }
}
