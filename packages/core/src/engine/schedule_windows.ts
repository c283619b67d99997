/**
 * Where a schedule's windows fall (its stored spec): the next window after a time, each
 * window's due time (its time plus a jitter that every engine computes the same, from the
 * schedule id and the window), and which windows a firing at `now` handles.
 *
 * Cron patterns are computed by croner (schedule_spec.ts `cronOf`), DST included: a time in a
 * spring-forward gap falls at the first valid time after it, a time repeated at fall-back once.
 */
import type { Cron } from 'croner'
import { cronOf, type StoredScheduleSpec } from './schedule_spec.ts'

/** Most windows one firing walks through after a downtime (each costs a cron step). */
export const MAX_SCAN = 1_000

export class ScheduleTimes {
  readonly #id: string
  readonly #spec: StoredScheduleSpec
  readonly #cron: Cron | null

  constructor(id: string, spec: StoredScheduleSpec) {
    this.#id = id
    this.#spec = spec
    this.#cron = spec.cron === null ? null : cronOf(spec.cron, spec.timezone)
  }

  /** The first window strictly after `t`, within startAt and endAt; null when there is none. */
  next(t: number): number | null {
    const from = this.#spec.startAt === null ? t : Math.max(t, this.#spec.startAt - 1)
    const window = this.#cron === null ? this.#nextEvery(from) : this.#nextCron(from)
    if (window === null) return null
    return this.#spec.endAt !== null && window > this.#spec.endAt ? null : window
  }

  /** The newest `n` windows at or before `t` (oldest first), within startAt. */
  newest(n: number, t: number): number[] {
    const { startAt, endAt, anchor } = this.#spec
    const until = endAt === null ? t : Math.min(t, endAt)
    const windows: number[] = []
    if (this.#cron === null) {
      const { everyMs } = this.#spec as { everyMs: number }
      const from = anchor as number
      if (until < from) return []
      const last = from + Math.floor((until - from) / everyMs) * everyMs
      for (let i = n - 1; i >= 0; i--) windows.push(last - i * everyMs)
    } else {
      for (const date of this.#cron.previousRuns(n, new Date(until + 1)))
        windows.unshift(date.getTime())
    }
    return windows.filter((w) => w >= (startAt ?? w) && w >= (anchor ?? w))
  }

  /** When window `t` is due: `t` plus its jitter (0..jitterMs, the same on every engine). */
  due(t: number): number {
    const jitterMs = this.#spec.jitterMs
    return jitterMs === 0 ? t : t + (fnv1a(`${this.#id}\u0000${t}`) % (jitterMs + 1))
  }

  #nextEvery(t: number): number | null {
    const { everyMs, anchor } = this.#spec as { everyMs: number; anchor: number }
    if (t < anchor) return anchor
    return anchor + (Math.floor((t - anchor) / everyMs) + 1) * everyMs
  }

  #nextCron(t: number): number | null {
    return (this.#cron as Cron).nextRun(new Date(t))?.getTime() ?? null
  }
}

/**
 * The time a schedule's next windows come after: its last window handled, else its creation
 * (a window at the very instant of its creation does not fire).
 */
export function windowsAfter(record: { lastWindow: number | null; createdAt: number }): number {
  return record.lastWindow ?? record.createdAt
}

/** What a firing at `now` handles. */
export interface DueWindows {
  /** Windows to start (or hand to the overlap policy), oldest first. */
  fire: number[]
  /** Windows passed over: older than the newest `1 + maxCatchup` due ones. */
  skipped: number
  /** The newest window handled (fired or skipped), or null when none was due. */
  last: number | null
  /** The next window not due yet, or null when the schedule has no more. */
  next: number | null
}

/**
 * The windows after `after` that are due at `now`: the newest `1 + maxCatchup` to fire, the
 * older ones skipped. A downtime of more than MAX_SCAN windows is not walked: the newest
 * windows are found backwards from `now`, and MAX_SCAN stands for the skipped count.
 */
export function dueWindows(
  times: ScheduleTimes,
  after: number,
  now: number,
  maxCatchup: number,
): DueWindows {
  const keep = 1 + maxCatchup
  const due: number[] = []
  let scanned = 0
  let t = times.next(after)
  while (t !== null && times.due(t) <= now) {
    if (++scanned > MAX_SCAN) return jumped(times, after, now, keep)
    due.push(t)
    if (due.length > keep) due.shift()
    t = times.next(t)
  }
  return {
    fire: due,
    skipped: scanned - due.length,
    last: due.at(-1) ?? null,
    next: t,
  }
}

function jumped(times: ScheduleTimes, after: number, now: number, keep: number): DueWindows {
  const newest = times.newest(keep + 1, now).filter((w) => w > after)
  const fire = newest.filter((w) => times.due(w) <= now).slice(-keep)
  const last = fire.at(-1) ?? null
  return { fire, skipped: MAX_SCAN, last, next: times.next(last ?? now) }
}

/** 32-bit FNV-1a of a string's UTF-16 units: a spread, not a secret. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return hash
}
