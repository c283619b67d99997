/**
 * Blocked runs in SQL (migration 10): a blocked run is stored `waiting` with `blocked_epoch`
 * set to the lease epoch of the suspend that found it blocked (SuspendRunOp.blocked), and read
 * as `blocked` while both hold. Every statement that wakes, claims or fences a waiting run
 * applies to it unchanged; a claim moves the epoch on, so the mark lapses by itself. The read
 * rule lives here once, for row mapping, status filters and counts alike.
 */
import type { RunStatus } from '@cairn/core/contracts'
import { isRunStatus } from '@cairn/core/store-kit'

/** The status a run row reads as, from its stored status, epoch and blocked mark. */
export function readStatus(stored: string, leaseEpoch: number, blockedEpoch: unknown): RunStatus {
  if (stored !== 'waiting' || blockedEpoch === null || blockedEpoch === undefined)
    return stored as RunStatus
  return Number(blockedEpoch) === leaseEpoch ? 'blocked' : 'waiting'
}

/** SQL true for a row of alias `r` that reads `blocked`. */
export function blockedSql(r: string): string {
  return `(${r}.status = 'waiting' AND ${r}.blocked_epoch = ${r}.lease_epoch)`
}

/** SQL true for a row of alias `r` that reads `waiting` (not blocked). */
export function waitingSql(r: string): string {
  return `(${r}.status = 'waiting' AND (${r}.blocked_epoch IS NULL OR ${r}.blocked_epoch <> ${r}.lease_epoch))`
}

/**
 * A status filter in stored terms: the statuses stored as they read, plus whether `waiting`
 * and `blocked` rows are wanted (both: the stored `waiting` covers them, no extra condition).
 */
export interface StoredStatusFilter {
  plain: RunStatus[]
  waitingOnly: boolean
  blockedOnly: boolean
}

export function storedStatusFilter(statuses: readonly RunStatus[]): StoredStatusFilter {
  const waiting = statuses.includes('waiting')
  const blocked = statuses.includes('blocked')
  const plain: RunStatus[] = statuses.filter((s) => s !== 'waiting' && s !== 'blocked')
  if (waiting && blocked) plain.push('waiting')
  return { plain, waitingOnly: waiting && !blocked, blockedOnly: blocked && !waiting }
}

/** The shape of a StoredStatusFilter: what its SQL text depends on (its values are bound). */
export interface StatusFilterShape {
  plainCount: number
  waitingOnly: boolean
  blockedOnly: boolean
}

export function statusFilterShape(filter: StoredStatusFilter): StatusFilterShape {
  const { waitingOnly, blockedOnly } = filter
  return { plainCount: filter.plain.length, waitingOnly, blockedOnly }
}

/**
 * The SQL of a status filter on alias `r`: `inList` renders the condition on the plain
 * statuses (bound as the caller binds them); the waiting/blocked split is a literal
 * condition on the row.
 */
export function statusFilterSql(
  r: string,
  filter: StatusFilterShape,
  inList: () => string,
): string {
  const parts: string[] = []
  if (filter.plainCount > 0) parts.push(inList())
  if (filter.waitingOnly) parts.push(waitingSql(r))
  if (filter.blockedOnly) parts.push(blockedSql(r))
  return parts.length === 1 ? (parts[0] as string) : `(${parts.join(' OR ')})`
}

/**
 * Status counts as stored (blocked runs inside `waiting`) → as read: `blocked` of the waiting
 * ones move to their own entry. Absent entries mean 0, as in RunFacets.byStatus.
 */
export function splitBlockedCount(
  counts: Partial<Record<RunStatus, number>>,
  blocked: number,
): Partial<Record<RunStatus, number>> {
  if (blocked <= 0) return counts
  const waiting = (counts.waiting ?? 0) - blocked
  const split = { ...counts, blocked }
  if (waiting > 0) split.waiting = waiting
  else delete split.waiting
  return split
}

/**
 * The read statuses of a list grouped by the status they are stored as: `waiting` and
 * `blocked` are both stored `waiting`, every other status as itself (a list query reads one
 * range of the status index per group).
 */
export function storedStatusGroups(statuses: readonly RunStatus[] | null): RunStatus[][] {
  if (statuses === null) return []
  const groups = new Map<string, RunStatus[]>()
  // A value that is no status matches no run: it makes no range (and a list of hundreds of
  // them would make more branches than SQLite allows in one compound SELECT).
  for (const status of new Set(statuses.filter(isRunStatus))) {
    const stored = status === 'blocked' ? 'waiting' : status
    const group = groups.get(stored)
    if (group === undefined) groups.set(stored, [status])
    else group.push(status)
  }
  return [...groups.values()]
}
