/**
 * backlog for the memory store: one pass over the runs. The memory store is for tests and
 * single-process development, where a scan of every run is cheap; the SQL stores count over
 * indexes instead.
 */
import type { RunBacklog } from '../../contracts/index.ts'
import { checkBacklogTime } from '../backlog_check.ts'
import type { StoreState } from './store_state.ts'

export function backlog(store: StoreState, now: number): RunBacklog {
  checkBacklogTime(now)
  const counts: RunBacklog = {
    pending: 0,
    waiting: 0,
    blocked: 0,
    queued: 0,
    dueTimers: 0,
    oldestPendingAt: null,
  }
  for (const { run } of store.runs.values()) {
    if (run.status === 'pending') {
      counts.pending += 1
      const at = run.availableAt
      if (at !== null && (counts.oldestPendingAt === null || at < counts.oldestPendingAt))
        counts.oldestPendingAt = at
    } else if (run.status === 'queued') {
      counts.queued += 1
    } else if (run.status === 'waiting' || run.status === 'blocked') {
      counts[run.status] += 1
      if (run.availableAt !== null && run.availableAt <= now) counts.dueTimers += 1
    }
  }
  return counts
}
