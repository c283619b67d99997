/**
 * Named queues this engine knows (`engine.registerQueue`, EngineOptions.queues): a step called
 * with `{ queue }` takes one of the queue's slots for each attempt. A queue's slots are shared
 * by every engine on the store; each engine writes its spec with every enqueue, the newest
 * writer's concurrency and rate being the queue's (docs/flow-control.md "Queues").
 */
import type { QueueRateLimit } from '../contracts/index.ts'
import { InvalidArgumentError } from '../errors/index.ts'
import { checkQueueName, MAX_QUEUE_CONCURRENCY } from '../store/queue_check.ts'
import { checkRateLimit } from '../store/queue_rate.ts'
import { checkOptionKeys } from '../util/known_keys.ts'
import { QUEUE_OPTIONS } from './option_specs.ts'
import { fairnessRule, type FairnessRule, type QueueFairness } from './queue_fairness.ts'

/** A queue's options. */
export interface QueueOptions {
  /** Attempts of the queue's steps running at once, fleet-wide: an integer 1..100000. */
  concurrency: number
  /**
   * At most `limit` attempts start in any interval of `periodMs`, fleet-wide (an integer
   * 1..100000 per 1..2147483647 ms). Absent: no rate.
   */
  rateLimit?: QueueRateLimit
  /**
   * The fairness key of a step call that gives none (`fairnessKey`), from the step's input: the
   * name of one of its fields (`'tenant'`: `input.tenant`) or a function of it. A string or a
   * number; anything else fails the call with E_INVALID_ARGUMENT. Absent: '' (one key).
   */
  fairness?: QueueFairness
  /**
   * Slot leases (docs/flow-control.md "Slot leases"): this engine holds slots of the queue in
   * the store — one write per renewal — and hands them to its own attempts in memory, with no
   * store write per attempt. Concurrency stays exact fleet-wide; priority and fairness are
   * strict within an engine, and across engines durable waiters go first from the holder's
   * next renewal on. Not with `rateLimit` (the option is refused). Default false.
   */
  slotLeases?: boolean
}

export interface RegisteredQueue {
  name: string
  concurrency: number
  rateLimit: QueueRateLimit | null
  fairness: FairnessRule | null
  slotLeases: boolean
}

export class QueueRegistry {
  readonly #byName = new Map<string, RegisteredQueue>()

  /** Checks everything now, so a bad queue fails at boot rather than in a run. */
  add(name: string, options: QueueOptions): RegisteredQueue {
    try {
      checkQueueName(name, 'registerQueue')
    } catch (error) {
      throw new InvalidArgumentError((error as Error).message, { details: { queue: String(name) } })
    }
    if (this.#byName.has(name))
      throw new InvalidArgumentError(`queue "${name}" is already registered`, {
        details: { queue: name },
      })
    if (options === null || typeof options !== 'object')
      throw new InvalidArgumentError(`queue "${name}": options must be an object`)
    checkOptionKeys(options, QUEUE_OPTIONS, `queue "${name}"`, { queue: name })
    const { concurrency } = options
    if (
      !Number.isSafeInteger(concurrency) ||
      concurrency < 1 ||
      concurrency > MAX_QUEUE_CONCURRENCY
    )
      throw new InvalidArgumentError(
        `queue "${name}": concurrency must be an integer from 1 to ${MAX_QUEUE_CONCURRENCY}, got ${String(concurrency)}`,
        { details: { queue: name, option: 'concurrency' } },
      )
    const queue = {
      name,
      concurrency,
      rateLimit: queueRate(name, options.rateLimit),
      fairness: fairnessRule(name, options.fairness),
      slotLeases: slotLeases(name, options.slotLeases, options.rateLimit !== undefined),
    }
    this.#byName.set(name, queue)
    return queue
  }

  find(name: string): RegisteredQueue | undefined {
    return this.#byName.get(name)
  }

  names(): string[] {
    return [...this.#byName.keys()]
  }
}

/** `slotLeases`, checked: a boolean, never with a rate (a rated grant is logged one by one). */
function slotLeases(name: string, value: unknown, rated: boolean): boolean {
  if (value === undefined) return false
  if (typeof value !== 'boolean')
    throw new InvalidArgumentError(`queue "${name}": slotLeases must be true or false`, {
      details: { queue: name, option: 'slotLeases' },
    })
  if (value && rated)
    throw new InvalidArgumentError(
      `queue "${name}": slotLeases cannot be used with rateLimit (each grant of a rated queue is logged in the store)`,
      { details: { queue: name, option: 'slotLeases' } },
    )
  return value
}

/** The queue's rate, checked by the rule every store applies (null: none). */
function queueRate(name: string, rate: unknown): QueueRateLimit | null {
  if (rate === undefined) return null
  try {
    // null is the stores' "no rate"; an option is given or left out.
    if (rate === null)
      throw new InvalidArgumentError('rateLimit is { limit, periodMs } or left out')
    return checkRateLimit(rate, `queue "${name}"`)
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message, {
      details: { queue: name, option: 'rateLimit' },
    })
  }
}

/**
 * A map of queues as EngineOptions.queues and config/durable.ts give them, checked by the
 * rules `registerQueue` applies (so a bad one fails where it is written). Returns it as given.
 */
export function checkQueues(queues: unknown): Readonly<Record<string, QueueOptions>> {
  // A plain object only: a Map or an array has no own entries to read (it would register
  // nothing, silently), and `{ __proto__: {…} }` written literally sets the prototype.
  const proto =
    queues === null || typeof queues !== 'object' ? undefined : Object.getPrototypeOf(queues)
  if (proto !== Object.prototype && proto !== null)
    throw new InvalidArgumentError(
      'queues must be a plain object of { name: { concurrency, rateLimit?, fairness?, slotLeases? } } (not a Map, an array or an object with a prototype of its own)',
    )
  const registry = new QueueRegistry()
  for (const [name, options] of Object.entries(queues as object))
    registry.add(name, options as QueueOptions)
  return queues as Record<string, QueueOptions>
}
