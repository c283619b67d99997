/**
 * A store handle for an engine a test "kills" without a process: after `kill()` every call it
 * makes fails before reaching the store and no push wake-up reaches it, so the engine left
 * behind changes nothing more — as a `kill -9`ed process would not. (A frozen clock alone is
 * not enough: a push wake-up still makes such an engine poll and claim at its frozen "now".)
 * Calls fail rather than hang so the harness can still close the engine.
 */
import type { StateStore } from '@cairn/core/contracts'

export interface Killable {
  store: StateStore
  /**
   * Refuse every later call; resolves once the calls already sent have settled (statements a
   * killed process had sent may still commit: the test goes on after they have).
   */
  kill(): Promise<void>
}

export function killable(inner: StateStore): Killable {
  let dead = false
  const inFlight = new Set<Promise<unknown>>()
  const refuse = () => Promise.reject(new Error('injected: this process was killed'))
  const send = (call: () => unknown) => {
    const sent = Promise.resolve().then(call)
    const tracked = sent.finally(() => inFlight.delete(tracked))
    inFlight.add(tracked)
    return sent
  }
  const watchClaimable = async (onWake: (at: number) => void) => {
    const stop = await inner.watchClaimable?.((at) => dead || onWake(at))
    return stop ?? (async () => {})
  }
  const store = new Proxy(inner, {
    get(target, key, receiver) {
      if (key === 'watchClaimable') return inner.watchClaimable && watchClaimable
      const value: unknown = Reflect.get(target, key, receiver)
      if (typeof value !== 'function' || key === 'kind') return value
      return (...args: unknown[]) => (dead ? refuse() : send(() => value.apply(target, args)))
    },
  })
  const kill = async () => {
    dead = true
    await Promise.allSettled(inFlight)
  }
  return { store, kill }
}
