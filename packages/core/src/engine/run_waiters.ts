/**
 * In-process notification that a run reached a terminal status, so `waitForRun` on a run this
 * engine drives answers at once; runs driven elsewhere are polled with back-off.
 */
export class RunWaiters {
  private readonly waiters = new Map<string, Set<() => void>>()

  /** Resolves on the next notify for `runId`, or after `maxWaitMs`, whichever is first. */
  wait(runId: string, maxWaitMs: number): Promise<void> {
    const { promise, resolve } = Promise.withResolvers<void>()
    let set = this.waiters.get(runId)
    if (set === undefined) this.waiters.set(runId, (set = new Set()))
    const done = () => {
      clearTimeout(timer)
      set.delete(done)
      if (set.size === 0 && this.waiters.get(runId) === set) this.waiters.delete(runId)
      resolve()
    }
    const timer = setTimeout(done, maxWaitMs)
    set.add(done)
    return promise
  }

  notify(runId: string): void {
    const set = this.waiters.get(runId)
    if (set === undefined) return
    for (const done of [...set]) done()
  }

  get size(): number {
    return this.waiters.size
  }
}
