/**
 * Time source for the engine: leases, timers and `ctx.now()` all read it. Types only.
 * The system clock is the default; the test harness injects a fake clock that skips time.
 */
export interface TimerHandle {
  cancel(): void
}

export interface Clock {
  /** Milliseconds since the Unix epoch (integer). */
  now(): number
  /**
   * Call `fn` once, no earlier than `delayMs` from now by this clock. The handle cancels it.
   * A timer never keeps the process alive on its own (`unref`), so an idle engine lets Node exit.
   */
  setTimer(delayMs: number, fn: () => void): TimerHandle
}
