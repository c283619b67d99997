/**
 * The worker's half of the db transport: receive claims due task rows of the worker's steps
 * whose requirements its capabilities meet (row locks skipped, so two workers never take one
 * task), waits for a NOTIFY, the next due time or the poll interval when there are none; a
 * claim's hold is `holder` + `held_until`, extended by heartbeats, lapsing by itself when the
 * worker goes silent (the next claim takes a lapsed row), ended by complete or hand-back.
 */
import { randomUUID } from 'node:crypto'
import type { ReceiveOptions, ReceivedTask, WorkerTransport } from '@cairn/core/contracts'
import { InvalidArgumentError, StoreFailureError } from '@cairn/core/errors'
import {
  checkReceiveOptions,
  ProtocolGate,
  parseWireMessage,
  type AnnounceMessage,
  type HeartbeatMessage,
  type ResultMessage,
  type TaskMessage,
} from '@cairn/core/wire'
import { untilDeadline } from '@cairn/core/wire'
import { keyOf } from './keys.ts'
import type { ResolvedTuning } from './options.ts'
import { GroupedWrites } from './grouped_writes.ts'
import type { CompletedTask, TransportTables } from './tables.ts'
import { Wakeup } from './wake.ts'

interface Hold {
  taskKey: string
  holder: string
}

/**
 * How long each step of close() may take: the hand-back (with an open still in progress), then
 * the connections' goodbye. A database that stopped answering would keep either waiting for
 * ever; past it the hand-back is given up (the holds lapse and the tasks are delivered again)
 * and the connections are cut. Two of them fit well inside the worker's CLOSE_GRACE_MS.
 */
export const CLOSE_STEP_MS = 2_000

export class DbWorkerTransport implements WorkerTransport {
  readonly name = 'db'
  readonly #tables: () => Promise<TransportTables>
  readonly #tuning: ResolvedTuning
  #db: TransportTables | null = null
  /** The tables of an open still in progress: close() cuts them if that open never ends. */
  #made: TransportTables | null = null
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
      this.#made = db
      try {
        await db.ensureSchema()
        this.#unlisten = await db.listen('tasks', () => this.#wakeup.wake())
        // Closed meanwhile (a close that gave up waiting for this open): nothing stays open.
        if (this.#closing) throw new InvalidArgumentError('the db transport is closed')
      } catch (error) {
        await this.#unlisten?.().catch(() => {})
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

  /** Bounded (CLOSE_STEP_MS per step): a database that stopped answering cannot hold it. */
  async close(): Promise<void> {
    if (this.#closing) return
    this.#closing = true
    this.#wakeup.wake()
    const handBackBy = Date.now() + CLOSE_STEP_MS
    // An open in progress undoes itself (it sees #closing); one stuck connecting is cut.
    if (this.#opening !== null && !(await untilDeadline(this.#opening, handBackBy))) {
      this.#made?.cut()
      return
    }
    const db = this.#db
    if (db === null) return
    this.#db = null
    await this.#handBackHeld(db, handBackBy)
    const unlisten = this.#unlisten?.().catch(this.#tuning.onError)
    const ended = Promise.all([unlisten, db.close().catch(this.#tuning.onError)])
    // Connections busy with a statement nobody answers, or waiting for a goodbye: cut.
    if (!(await untilDeadline(ended, Date.now() + CLOSE_STEP_MS))) db.cut()
  }

  /** The safety net for what the worker could not complete or hand back itself. */
  async #handBackHeld(db: TransportTables, deadline: number): Promise<void> {
    const holds = [...this.#held.values()]
    this.#held.clear()
    if (holds.length === 0) return
    const back = db.handBack(holds).catch(this.#tuning.onError)
    if (!(await untilDeadline(back, deadline)))
      this.#tuning.onError(
        new StoreFailureError(
          `db transport: handing back ${holds.length} task(s) did not finish in ${CLOSE_STEP_MS} ms; given up, they are delivered again when their holds lapse`,
        ),
      )
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
