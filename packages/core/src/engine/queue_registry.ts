/**
 * Named queues this engine knows (`engine.registerQueue`, EngineOptions.queues): a step called
 * with `{ queue }` takes one of the queue's slots for each attempt. A queue's slots are shared
 * by every engine on the store; each engine writes its spec with every enqueue, the newest
 * writer's concurrency being the queue's (docs/flow-control.md "Queues").
 */
import { InvalidArgumentError } from '../errors/index.ts'
import { checkQueueName, MAX_QUEUE_CONCURRENCY } from '../store/queue_check.ts'
import { checkOptionKeys } from '../util/known_keys.ts'
import { QUEUE_OPTIONS } from './option_specs.ts'

/** A queue's options. */
export interface QueueOptions {
  /** Attempts of the queue's steps running at once, fleet-wide: an integer 1..100000. */
  concurrency: number
}

export interface RegisteredQueue {
  name: string
  concurrency: number
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
    const queue = { name, concurrency }
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
      'queues must be a plain object of { name: { concurrency } } (not a Map, an array or an object with a prototype of its own)',
    )
  const registry = new QueueRegistry()
  for (const [name, options] of Object.entries(queues as object))
    registry.add(name, options as QueueOptions)
  return queues as Record<string, QueueOptions>
}
