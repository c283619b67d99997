/**
 * Tasks published to one transport, sent in batches: while a publish is in flight, the tasks
 * that come meanwhile wait and go together in the next one (as the committer groups store
 * writes). Under load that is one `INSERT … unnest` or one BullMQ `addBulk` for many tasks
 * instead of one round trip each; alone, a task goes at once. Fire and forget: a task is durable
 * in the store before it is published, and a failed publish is sent again by the step's check.
 */
import type { Logger } from '../contracts/logger.ts'
import type { EngineTransport, TaskToPublish } from '../contracts/transport.ts'

/** Most tasks in one publish call. */
const MAX_BATCH = 500

export class PublishBatcher {
  readonly #transport: EngineTransport
  readonly #name: string
  readonly #logger: Logger
  #waiting: TaskToPublish[] = []
  #sending = false

  constructor(name: string, transport: EngineTransport, logger: Logger) {
    this.#name = name
    this.#transport = transport
    this.#logger = logger
  }

  publish(task: TaskToPublish): void {
    this.#waiting.push(task)
    if (!this.#sending) void this.#drain()
  }

  async #drain(): Promise<void> {
    this.#sending = true
    while (this.#waiting.length > 0) {
      const batch = this.#waiting.splice(0, MAX_BATCH)
      try {
        await this.#transport.publish(batch)
      } catch (error) {
        this.#logger.warn(
          { err: error, transport: this.#name, tasks: batch.length },
          'publishing tasks failed; each is sent again at its next check',
        )
      }
    }
    this.#sending = false
  }
}
