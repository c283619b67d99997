/**
 * The worker's half over a `@boringnode/queue` adapter. `receive` pops from every task queue the
 * worker may serve (the routes record, layout.ts), rotating the first, and polls when there is
 * nothing. The hold is the adapter's active state under this half's worker id: a heartbeat
 * renews it; a lapsed one is put back by the stalled-job recovery every receiving worker runs
 * with its own `holdMs`. The adapter does not fence `completeJob` or `retryJob` to the holder,
 * so this half renews first and acts only if the renewal counted the job as still its own.
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
import type { QueueAdapter } from './adapter.ts'
import { openAdapter, Pause } from './connection.ts'
import { untilDeadline } from '@cairn/core/wire'
import { NEVER_GIVE_UP } from './engine.ts'
import { queueNames, REPORT_JOB, servedQueues, WITHDRAWN, type QueueNames } from './layout.ts'
import type { ResolvedOptions } from './options.ts'
import { RegistryRecord, withEntry, type Entries } from './registry.ts'

interface Held {
  id: string
  queue: string
}

/**
 * How long each step of close() may take: the hand-backs (with an open still in progress), then
 * the adapter's destroy. A store that is down or stopped answering could keep either waiting
 * for ever (a command waiting for a reply, a query on a dead connection); past it the
 * hand-backs are given up (the holds lapse and the stalled-job recovery puts the tasks back)
 * and the adapter is left to its owner. Two of them fit well inside the worker's CLOSE_GRACE_MS.
 */
export const CLOSE_STEP_MS = 2_000

export class QueueWorkerTransport implements WorkerTransport {
  readonly name = 'queue'
  readonly #options: ResolvedOptions
  readonly #names: QueueNames
  readonly #gate = new ProtocolGate()
  readonly #pause = new Pause()
  #adapter: QueueAdapter | null = null
  #opening: Promise<void> | null = null
  #closing = false
  /** Tasks held now, by job id: handed back on close. */
  readonly #held = new Map<string, Held>()
  /** Task queue → when this worker last put back its stalled tasks. */
  readonly #recovered = new Map<string, number>()

  constructor(options: ResolvedOptions) {
    this.#options = options
    this.#names = queueNames(options.prefix)
  }

  /** A failed open is forgotten: the next open() tries again. */
  open(): Promise<void> {
    this.#opening ??= (async () => {
      const adapter = await openAdapter(this.#options, `cairn-worker-${randomUUID()}`)
      if (this.#closing) {
        // Closed meanwhile (a close that gave up waiting for this open): nothing stays open.
        await adapter.destroy().catch(this.#options.onError)
        throw new InvalidArgumentError('the queue transport is closed')
      }
      this.#adapter = adapter
    })().catch((error: unknown) => {
      this.#opening = null
      throw error
    })
    return this.#opening
  }

  /** Bounded (CLOSE_STEP_MS per step): a store that is down cannot hold it. */
  async close(): Promise<void> {
    if (this.#closing) return
    this.#closing = true
    this.#pause.wakeAll()
    const handBackBy = Date.now() + CLOSE_STEP_MS
    // An open in progress undoes itself when it ends (it sees #closing).
    if (this.#opening !== null) await untilDeadline(this.#opening, handBackBy)
    const adapter = this.#adapter
    this.#adapter = null
    if (adapter === null) return
    await this.#handBackHeld(adapter, handBackBy)
    const destroyed = adapter.destroy().catch(this.#options.onError)
    if (!(await untilDeadline(destroyed, Date.now() + CLOSE_STEP_MS)))
      this.#options.onError(
        new Error(
          `queue transport: the adapter's destroy did not finish in ${CLOSE_STEP_MS} ms; given up`,
        ),
      )
  }

  /** The safety net for what the worker could not complete or hand back itself. */
  async #handBackHeld(adapter: QueueAdapter, deadline: number): Promise<void> {
    const held = [...this.#held.values()]
    if (held.length === 0) return
    const back = Promise.all(
      held.map((one) => this.#handBack(adapter, one).catch(this.#options.onError)),
    )
    if (!(await untilDeadline(back, deadline)))
      this.#options.onError(
        new Error(
          `queue transport: handing back ${held.length} task(s) did not finish in ${CLOSE_STEP_MS} ms; given up, the stalled-job recovery puts them back when their holds lapse`,
        ),
      )
  }

  async receive(options: ReceiveOptions): Promise<ReceivedTask[]> {
    this.#gate.assertAdmitted()
    checkReceiveOptions(options)
    const { signal } = options
    let start = 0
    let idleMs = 5
    while (!signal.aborted && !this.#closing) {
      const adapter = this.#connected()
      const routes = await this.#registry(adapter, 'routes').read()
      const served = this.#served(routes, options)
      await this.#recoverStalled(adapter, served, options.holdMs)
      const got: ReceivedTask[] = []
      // Rotate the first queue, so one busy step does not starve the others.
      for (let i = 0; i < served.length && got.length < options.max; i++) {
        const queue = served[(start + i) % served.length] as string
        await this.#take(adapter, queue, options, got)
      }
      start += 1
      if (got.length > 0) return got
      await this.#pause.sleep(idleMs, signal)
      idleMs = Math.min(this.#options.pollIntervalMs, idleMs * 2)
    }
    return []
  }

  /**
   * Into the workers record, then read back until it is there (registry.ts). Announcements older
   * than `forgetWorkersAfterMs` by this worker's clock are dropped on the way.
   */
  async announce(message: AnnounceMessage): Promise<void> {
    this.#gate.check(message)
    const text = JSON.stringify(message)
    const forgetBefore = message.at - this.#options.forgetWorkersAfterMs
    await this.#registry(this.#connected(), 'workers').update(
      (entries) => withEntry(forgetOld(entries, forgetBefore), message.workerId, text),
      (entries) => entries[message.workerId] === text,
    )
  }

  /** Takes up to what `options.max` leaves from one queue into `got`. */
  async #take(
    adapter: QueueAdapter,
    queue: string,
    options: ReceiveOptions,
    got: ReceivedTask[],
  ): Promise<void> {
    while (got.length < options.max && !this.#closing) {
      const job = await adapter.popFrom(queue)
      if (job === null) return
      if (this.#closing) {
        // Popped while close() handed back what it held: given back too, not kept.
        await adapter.retryJob(job.id, queue).catch(this.#options.onError)
        return
      }
      if (job.payload === WITHDRAWN) {
        // Withdrawn while it waited (pickupTimeoutMs): dropped, never run.
        await adapter.completeJob(job.id, queue, true).catch(this.#options.onError)
        continue
      }
      const parsed = parseWireMessage(job.payload, { expect: ['task'] })
      if (!parsed.ok) {
        this.#options.onRefused({ refusal: parsed.refusal, stream: 'tasks' })
        // Acknowledged and dropped: never delivered again.
        await adapter
          .failJob(job.id, queue, new Error(`refused: ${parsed.refusal.reason}`), true)
          .catch(this.#options.onError)
        continue
      }
      const held: Held = { id: job.id, queue }
      this.#held.set(job.id, held)
      got.push(this.#received(adapter, held, parsed.message))
    }
  }

  #received(adapter: QueueAdapter, held: Held, message: TaskMessage): ReceivedTask {
    return {
      message,
      heartbeat: async (beat: HeartbeatMessage) => {
        if (!(await this.#stillHeld(adapter, held))) return 'lost'
        await this.#report(adapter, beat)
        return 'held'
      },
      complete: async (result: ResultMessage) => {
        await this.#report(adapter, result)
        // A hold that lapsed: the task is delivered again; this result is settled once anyway.
        if (await this.#stillHeld(adapter, held))
          await adapter.completeJob(held.id, held.queue, true)
        this.#held.delete(held.id)
      },
      handBack: async () => {
        await this.#handBack(adapter, held)
      },
    }
  }

  /**
   * The fence the adapter lacks: a renewal counts the job only if it is still active under this
   * worker id, and it restarts the hold, so the complete or retry that follows within the same
   * instant acts on this worker's own delivery. A job no longer ours is forgotten.
   */
  async #stillHeld(adapter: QueueAdapter, held: Held): Promise<boolean> {
    if (!this.#held.has(held.id)) return false
    const renewed = await adapter.renewJobs(held.queue, [held.id])
    if (renewed === 1) return true
    this.#held.delete(held.id)
    return false
  }

  async #handBack(adapter: QueueAdapter, held: Held): Promise<void> {
    if (await this.#stillHeld(adapter, held)) await adapter.retryJob(held.id, held.queue)
    this.#held.delete(held.id)
  }

  async #report(adapter: QueueAdapter, message: ResultMessage | HeartbeatMessage): Promise<void> {
    await adapter.pushOn(this.#names.reports, {
      id: randomUUID(),
      name: REPORT_JOB,
      payload: JSON.stringify(message),
      attempts: 0,
    })
  }

  /**
   * The routes' queues this worker may serve, and always each step's queue without
   * requirements — its name needs no record, so a record lost with the broker does not hide it.
   */
  #served(routes: Entries, options: ReceiveOptions): string[] {
    const served = new Set(servedQueues(routes, options.steps, options.capabilities))
    for (const step of options.steps) served.add(this.#names.task(step, []))
    return [...served].sort()
  }

  /** Puts back, at most once per `stalledIntervalMs` per queue, tasks silent for `holdMs`. */
  async #recoverStalled(adapter: QueueAdapter, queues: string[], holdMs: number): Promise<void> {
    const now = Date.now()
    for (const queue of queues) {
      const last = this.#recovered.get(queue) ?? 0
      if (now - last < this.#options.stalledIntervalMs) continue
      this.#recovered.set(queue, now)
      await adapter.recoverStalledJobs(queue, holdMs, NEVER_GIVE_UP)
    }
  }

  #registry(adapter: QueueAdapter, id: 'routes' | 'workers'): RegistryRecord {
    return new RegistryRecord(adapter, this.#names.registry, id)
  }

  #connected(): QueueAdapter {
    if (this.#adapter === null || this.#closing)
      throw new InvalidArgumentError(
        this.#closing ? 'the queue transport is closed' : 'open() the queue transport first',
      )
    return this.#adapter
  }
}

/** The entries whose announcement is at or after `before` (unreadable ones are dropped). */
function forgetOld(entries: Entries, before: number): Entries {
  const kept: [string, string][] = []
  for (const [id, text] of Object.entries(entries)) {
    const parsed = parseWireMessage(text, { expect: ['announce'] })
    if (parsed.ok && parsed.message.at >= before) kept.push([id, text])
  }
  return Object.fromEntries(kept)
}
