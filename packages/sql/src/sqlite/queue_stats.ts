/**
 * StateStore.queueStats on SQLite: one read for every queue asked, counted from items and runs,
 * the rate's recent grants from the queue's grant log (ops/queue_rate.ts), the leased slots
 * from its unexpired leases (ops/queue_leases.ts).
 */
import { queueThrottled } from '@cairn/core/store-kit'
import type { QueueStats } from '@cairn/core/contracts'
import { storedRate } from './ops/queue_rate.ts'
import type { Statements } from './statements.ts'

interface StatsRow {
  name: string
  concurrency: number
  rate_limit: number | null
  rate_period_ms: number | null
  granted: number
  waiting: number
  oldest: number | null
  recent: number
  leased: number
}

/** The queues of `names` that exist, in name order (the statement sorts by code point), at `now`. */
export function queueStats(s: Statements, names: readonly string[], now: number): QueueStats[] {
  const rows = s.queueStats.all(now, now, JSON.stringify(names)) as unknown as StatsRow[]
  return rows.map((row) => {
    const counts = {
      concurrency: row.concurrency,
      granted: row.granted,
      waiting: row.waiting,
      rateLimit: storedRate(row.rate_limit, row.rate_period_ms),
      recentGrants: row.recent,
      leased: row.leased,
    }
    return {
      queue: row.name,
      ...counts,
      oldestWaitingSince: row.oldest,
      throttled: queueThrottled(counts),
    }
  })
}
