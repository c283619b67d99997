/**
 * `durable:runs` flags turned into a listRuns query, checked at the boundary: an unknown status
 * or a malformed limit is E_INVALID_ARGUMENT naming the flag; a limit outside 1..1000 is
 * clamped and the clamp is reported (never a silently changed value).
 */
import { InvalidArgumentError, RUN_STATUSES, type ListRunsQuery, type RunStatus } from '@cairn/core'

/** Every run status, in lifecycle order (the order `--help` and errors list them in). */
export { RUN_STATUSES }

export const DEFAULT_LIMIT = 50
/** The store's page limit: one listRuns call never returns more. */
export const MAX_LIMIT = 1000

export interface RunQueryFlags {
  /** `--status` values; each may be a comma-separated list. */
  status?: string[]
  workflow?: string
  limit?: number
  cursor?: string
}

export interface RunQuery {
  query: ListRunsQuery & { limit: number }
  /** What was adjusted, for the operator to see (a clamped limit). */
  notes: string[]
}

export function buildRunQuery(flags: RunQueryFlags): RunQuery {
  const notes: string[] = []
  const query: ListRunsQuery & { limit: number } = { limit: DEFAULT_LIMIT }
  const statuses = parseStatuses(flags.status)
  if (statuses !== undefined) query.status = statuses
  if (flags.workflow !== undefined) {
    if (flags.workflow.trim() === '') throw new InvalidArgumentError('--workflow must not be empty')
    query.workflow = flags.workflow
  }
  if (flags.limit !== undefined) {
    query.limit = clampLimit(flags.limit)
    if (query.limit !== flags.limit)
      notes.push(
        `--limit ${flags.limit} is outside 1..${MAX_LIMIT}: showing at most ${query.limit}`,
      )
  }
  if (flags.cursor !== undefined) query.cursor = flags.cursor
  return { query, notes }
}

/** `['pending,running', 'waiting']` → the statuses; undefined when the flag was not given. */
export function parseStatuses(values: string[] | undefined): RunStatus[] | undefined {
  if (values === undefined || values.length === 0) return undefined
  const parts = values.flatMap((value) => value.split(',')).map((part) => part.trim())
  const unknown = parts.filter((part) => !(RUN_STATUSES as readonly string[]).includes(part))
  if (unknown.length > 0) {
    throw new InvalidArgumentError(
      `--status ${unknown.map((u) => JSON.stringify(u)).join(', ')} is not a run status (one of: ${RUN_STATUSES.join(', ')})`,
      { details: { flag: 'status', unknown, known: RUN_STATUSES } },
    )
  }
  return [...new Set(parts as RunStatus[])]
}

function clampLimit(limit: number): number {
  if (!Number.isInteger(limit)) {
    throw new InvalidArgumentError(`--limit must be a whole number, got ${String(limit)}`, {
      details: { flag: 'limit' },
    })
  }
  return Math.min(Math.max(limit, 1), MAX_LIMIT)
}
