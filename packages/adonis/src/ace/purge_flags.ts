/**
 * `durable:purge` flags turned into engine.purgeRuns' filter (docs/retention.md), checked at
 * the boundary: `--status` is required and takes finished statuses only; `--before` is an ISO
 * date or time (UTC when it names no zone) or a duration ago; `--limit` a positive integer.
 * Anything else is E_INVALID_ARGUMENT naming the flag.
 */
import {
  InvalidArgumentError,
  isTerminalStatus,
  RUN_STATUSES,
  toMilliseconds,
  type PurgeFilter,
  type PurgeRefusal,
} from '@cairn/core'
import type { TerminalStatus } from '@cairn/core/contracts'

/** The statuses of finished runs, the only ones ever deleted. */
export const TERMINAL_STATUSES: readonly TerminalStatus[] = RUN_STATUSES.filter(isTerminalStatus)

export interface PurgeFlags {
  /** `--status` values; each may be a comma-separated list. */
  status?: string[]
  workflow?: string
  before?: string
  limit?: number
}

export function buildPurgeFilter(flags: PurgeFlags, now: number): PurgeFilter {
  const filter: PurgeFilter = { status: purgeStatuses(flags.status) }
  if (flags.workflow !== undefined) {
    if (flags.workflow.trim() === '') throw new InvalidArgumentError('--workflow must not be empty')
    filter.workflow = flags.workflow
  }
  if (flags.before !== undefined) filter.createdBefore = createdBefore(flags.before, now)
  if (flags.limit !== undefined) {
    if (!Number.isSafeInteger(flags.limit) || flags.limit < 1)
      throw new InvalidArgumentError(
        `--limit must be a whole number of at least 1, got ${String(flags.limit)}`,
        { details: { flag: 'limit' } },
      )
    filter.limit = flags.limit
  }
  return filter
}

function purgeStatuses(values: string[] | undefined): TerminalStatus[] {
  const parts = (values ?? []).flatMap((value) => value.split(',')).map((part) => part.trim())
  if (parts.length === 0)
    throw new InvalidArgumentError(
      `--status is required: which finished runs to delete (${TERMINAL_STATUSES.join(', ')})`,
      { details: { flag: 'status' } },
    )
  const wrong = parts.filter((part) => !isTerminalStatus(part))
  if (wrong.length > 0)
    throw new InvalidArgumentError(
      `--status ${wrong.map((w) => JSON.stringify(w)).join(', ')}: only finished runs are deleted (one of: ${TERMINAL_STATUSES.join(', ')})`,
      { details: { flag: 'status', unknown: wrong, known: TERMINAL_STATUSES } },
    )
  return [...new Set(parts as TerminalStatus[])]
}

const ISO_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,3})?)?(Z|[+-]\d{2}:?\d{2})?)?$/

/** Epoch ms of `--before`: a date that does not exist (2026-02-30) is refused, not rolled over. */
function createdBefore(value: string, now: number): number {
  const refused = new InvalidArgumentError(
    `--before ${JSON.stringify(value)} is not an ISO date or time (2026-01-31, 2026-01-31T12:00:00Z) or a duration ago (30d, 12h)`,
    { details: { flag: 'before' } },
  )
  if (/^\d{4}-/.test(value)) {
    const [, y, mo, d, h = '00', mi = '00', sec = '00', frac = '', zone = 'Z'] =
      ISO_TIME.exec(value) ?? []
    if (y === undefined) throw refused
    const day = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)))
    const exists = day.getUTCMonth() === Number(mo) - 1 && day.getUTCDate() === Number(d)
    if (!exists || Number(h) > 23 || Number(mi) > 59 || Number(sec) > 59) throw refused
    const offset = zone === 'Z' ? zone : `${zone.slice(0, 3)}:${zone.slice(-2)}`
    const at = Date.parse(`${y}-${mo}-${d}T${h}:${mi}:${sec}${frac}${offset}`)
    if (Number.isNaN(at)) throw refused
    return at
  }
  try {
    return now - toMilliseconds(value, '--before')
  } catch {
    throw refused
  }
}

/** `completed, failed; workflow sync; created before 2026-01-31T00:00:00.000Z`. */
export function describeScope(filter: PurgeFilter): string {
  return [
    [filter.status].flat().join(', '),
    filter.workflow === undefined ? null : `workflow ${filter.workflow}`,
    filter.createdBefore === undefined
      ? null
      : `created before ${new Date(filter.createdBefore).toISOString()}`,
  ]
    .filter((part) => part !== null)
    .join('; ')
}

/** `order-7: its parent order-1 is waiting`. */
export function describeRefusal({ runId, blocker }: PurgeRefusal): string {
  const who = blocker.relation === 'self' ? 'it' : `its ${blocker.relation} ${blocker.runId}`
  return `${runId}: ${who} is ${blocker.status}`
}
