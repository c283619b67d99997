/**
 * Remote-step attempts whose turn is still in memory on this engine, by task id: a result the
 * engine consumes for one of them is handed to its turn, which records it in one write (the
 * position's checkpoint), instead of going through the run's inbox, a suspend, a wake and a
 * new claim. Only while the turn holds the run for the attempt (up to `holdTimersUpToMs`, as a
 * short sleep is held); a result arriving later, or at another engine, takes the inbox path.
 */
import type { ResultMessage } from '../wire/index.ts'

/**
 * Records `result` in the live turn. Resolves true once it is durable; false when the turn can
 * no longer record it (ended, lost its lease, let the run go): the caller delivers it through
 * the inbox instead.
 */
export type LiveResultHandler = (result: ResultMessage) => Promise<boolean>

export class LiveTasks {
  readonly #byTask = new Map<string, LiveResultHandler>()

  /** Registers the handler of a task; the returned function removes it (idempotent). */
  register(taskId: string, handler: LiveResultHandler): () => void {
    this.#byTask.set(taskId, handler)
    return () => {
      if (this.#byTask.get(taskId) === handler) this.#byTask.delete(taskId)
    }
  }

  /** Hands `result` to its live turn; false when none holds it or the turn could not record it. */
  async deliver(result: ResultMessage): Promise<boolean> {
    const handler = this.#byTask.get(result.taskId)
    if (handler === undefined) return false
    return handler(result)
  }

  get size(): number {
    return this.#byTask.size
  }
}
