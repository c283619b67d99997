/** StateStore.queueStats on SQLite: one read for every queue asked, counted from items and runs. */
import type { QueueStats } from '@cairn/core/contracts'
import type { Statements } from './statements.ts'

interface StatsRow {
  name: string
  concurrency: number
  granted: number
  waiting: number
  oldest: number | null
}

/** The queues of `names` that exist, in name order (the statement sorts by code point). */
export function queueStats(s: Statements, names: readonly string[]): QueueStats[] {
  const rows = s.queueStats.all(JSON.stringify(names)) as unknown as StatsRow[]
  return rows.map((row) => ({
    queue: row.name,
    concurrency: row.concurrency,
    granted: row.granted,
    waiting: row.waiting,
    oldestWaitingSince: row.oldest,
  }))
}
