/**
 * Opening an adapter, and the pauses of the polling loops (the adapter contract has no blocking
 * pop and no wake-up channel, so idle halves poll; close() cuts every pause short).
 */
import type { QueueAdapter } from './adapter.ts'
import { conflictRetrying } from './conflicts.ts'
import { queueNames } from './layout.ts'
import type { ResolvedOptions } from './options.ts'

/**
 * A new adapter from the factory, under `workerId`, proven reachable by one read (a count), so
 * open() fails at once and clearly when the broker or database is not there; its calls are
 * retried on a database conflict (conflicts.ts). A failed open leaves nothing open.
 */
export async function openAdapter(
  options: ResolvedOptions,
  workerId: string,
): Promise<QueueAdapter> {
  let adapter: QueueAdapter
  try {
    adapter = options.adapter()
  } catch (error) {
    throw new Error(`queue transport: the adapter factory failed: ${reasonOf(error)}`, {
      cause: error,
    })
  }
  if (typeof adapter?.popFrom !== 'function' || typeof adapter.renewJobs !== 'function')
    throw new Error(
      'queue transport: the adapter factory did not make a @boringnode/queue adapter with popFrom and renewJobs (0.6 or later)',
    )
  if ((adapter as { constructor?: { name?: string } }).constructor?.name === 'SyncAdapter')
    throw new Error(
      'queue transport: the sync adapter runs each job in the process that pushes it, so it cannot carry tasks to workers: use the redis or database adapter',
    )
  adapter = conflictRetrying(adapter)
  adapter.setWorkerId(workerId)
  try {
    await adapter.sizeOf(queueNames(options.prefix).reports)
  } catch (error) {
    await adapter.destroy().catch(() => {})
    throw new Error(`queue transport: cannot reach the queue adapter's store: ${reasonOf(error)}`, {
      cause: error,
    })
  }
  return adapter
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/** Sleeps that `wakeAll` ends early (a close, or new work this process knows of). */
export class Pause {
  readonly #wakers = new Set<() => void>()

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer)
        this.#wakers.delete(done)
        signal?.removeEventListener('abort', done)
        resolve()
      }
      const timer = setTimeout(done, ms)
      this.#wakers.add(done)
      signal?.addEventListener('abort', done, { once: true })
      if (signal?.aborted === true) done()
    })
  }

  wakeAll(): void {
    for (const wake of [...this.#wakers]) wake()
  }
}
