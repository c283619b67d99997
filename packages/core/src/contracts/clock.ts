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
  /**
   * OPTIONAL. Milliseconds on a clock that never goes back and keeps counting while the
   * process is paused (SIGSTOP, a long GC pause): what the engine measures a lease's age on,
   * so a wall-clock step backwards never makes a lapsed lease look valid. Only differences
   * between two readings mean anything. Absent: the engine uses `now()`.
   */
  monotonic?(): number
}
