/** Checks of option values shared by commands; a bad value is a usage error (exit 2). */
import { isTerminalStatus, RUN_STATUSES, toMilliseconds } from '@cairn/core'
import type { RunStatus, TerminalStatus } from '@cairn/core/contracts'
import { UsageError } from './usage_error.ts'

export { RUN_STATUSES }

/** The statuses of finished runs, the only ones ever deleted. */
export const TERMINAL_STATUSES: readonly TerminalStatus[] = RUN_STATUSES.filter(isTerminalStatus)

export function statusesOf(values: readonly string[] | undefined): RunStatus[] | undefined {
  if (values === undefined || values.length === 0) return undefined
  for (const value of values)
    if (!RUN_STATUSES.includes(value as RunStatus))
      throw new UsageError(`--status ${value}: expected one of ${RUN_STATUSES.join(', ')}`)
  return values as RunStatus[]
}

/** An integer option within [min, max], or `fallback` when absent. */
export function integerOf(
  name: string,
  value: string | undefined,
  range: { min: number; max: number; fallback: number },
): number {
  if (value === undefined) return range.fallback
  const n = Number(value)
  if (!/^\d+$/.test(value) || n < range.min || n > range.max)
    throw new UsageError(
      `--${name} ${value}: expected an integer from ${range.min} to ${range.max}`,
    )
  return n
}

/**
 * `--status` of a deletion: required, each value one terminal status or a comma-separated
 * list of them (`--status completed,failed --status dead`).
 */
export function terminalStatusesOf(values: readonly string[] | undefined): TerminalStatus[] {
  const statuses = (values ?? []).flatMap((value) => value.split(',')).map((s) => s.trim())
  if (statuses.length === 0)
    throw new UsageError(
      `--status is required: which finished runs (${TERMINAL_STATUSES.join(', ')})`,
    )
  for (const status of statuses)
    if (!isTerminalStatus(status))
      throw new UsageError(
        RUN_STATUSES.includes(status as RunStatus)
          ? `--status ${status}: only finished runs are deleted (${TERMINAL_STATUSES.join(', ')})`
          : `--status ${status}: expected one of ${TERMINAL_STATUSES.join(', ')}`,
      )
  return [...new Set(statuses as TerminalStatus[])]
}

/** `2026-01-31`, `2026-01-31T12:00`, `…T12:00:00.250Z`, `…T12:00:00+02:00`. */
const ISO_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,3})?)?(Z|[+-]\d{2}:?\d{2})?)?$/

/**
 * `--before`: an ISO-8601 date or date-time (`2026-01-31`, `2026-01-31T12:00:00Z`; UTC when it
 * names no zone), or a duration ago (`30d`, `12h`, `7 days`), as epoch milliseconds. A date
 * that does not exist (2026-02-30) is refused, never rolled over.
 */
export function beforeOf(value: string, now: number): number {
  const usage = new UsageError(
    `--before ${value}: expected an ISO date or time (2026-01-31, 2026-01-31T12:00:00Z) or a duration ago (30d, 12h)`,
  )
  if (/^\d{4}-/.test(value)) {
    const [, y, mo, d, h = '00', mi = '00', sec = '00', frac = '', zone = 'Z'] =
      ISO_TIME.exec(value) ?? []
    if (y === undefined) throw usage
    const day = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)))
    const exists = day.getUTCMonth() === Number(mo) - 1 && day.getUTCDate() === Number(d)
    if (!exists || Number(h) > 23 || Number(mi) > 59 || Number(sec) > 59) throw usage
    const offset = zone === 'Z' ? zone : `${zone.slice(0, 3)}:${zone.slice(-2)}`
    const at = Date.parse(`${y}-${mo}-${d}T${h}:${mi}:${sec}${frac}${offset}`)
    if (Number.isNaN(at)) throw usage
    return at
  }
  try {
    return now - toMilliseconds(value, '--before')
  } catch {
    throw usage
  }
}
