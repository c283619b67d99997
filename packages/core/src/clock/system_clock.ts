/** The real clock: Date.now() and unref'd timers. */
import type { Clock, TimerHandle } from '../contracts/clock.ts'

// setTimeout's maximum delay; longer waits are chained so they neither fire early nor overflow.
const MAX_TIMER_MS = 2_147_483_647

export class SystemClock implements Clock {
  now(): number {
    return Date.now()
  }

  // CLOCK_MONOTONIC on Linux: immune to wall-clock steps, and it counts a SIGSTOP pause.
  monotonic(): number {
    return performance.now()
  }

  setTimer(delayMs: number, fn: () => void): TimerHandle {
    const due = Date.now() + Math.max(0, delayMs)
    let handle: NodeJS.Timeout
    const arm = () => {
      const left = due - Date.now()
      handle = setTimeout(
        left > 0 ? (left > MAX_TIMER_MS ? arm : fire) : fire,
        Math.min(Math.max(left, 0), MAX_TIMER_MS),
      )
      handle.unref()
    }
    const fire = () => (Date.now() >= due ? fn() : arm())
    arm()
    return { cancel: () => clearTimeout(handle) }
  }
}

export const systemClock = new SystemClock()
