/**
 * What the raw rows share: the workload's producers (C of them, writing W runs of S rows, each
 * row awaiting its own durable commit) and the group-commit loop of the batched variants (every
 * row queued since the last commit goes in the next one, one commit in flight at a time).
 */
import { C, S, W } from './workload.ts'

export type Write = (run: string, seq: number) => Promise<void>

export interface QueuedRow {
  run: string
  seq: number
}

/** C producers, each writing its run's S rows one awaited commit at a time: wall seconds. */
export async function produce(write: Write): Promise<number> {
  let next = 0
  const producer = async () => {
    while (next < W) {
      const run = `r${next++}`
      for (let seq = 0; seq < S; seq++) await write(run, seq)
    }
  }
  const started = performance.now()
  await Promise.all(Array.from({ length: C }, producer))
  return (performance.now() - started) / 1000
}

/**
 * A Write whose rows `commit` writes in groups: the first row of a tick schedules the flush, the
 * rest of the tick's rows join it, and rows queued while a commit is in flight form the next.
 */
export function groupCommitWriter(commit: (rows: readonly QueuedRow[]) => Promise<void>): Write {
  let queue: Array<QueuedRow & { resolve: () => void; reject: (e: unknown) => void }> = []
  let flushing = false
  const flush = async () => {
    while (queue.length > 0) {
      const batch = queue
      queue = []
      try {
        await commit(batch)
        for (const row of batch) row.resolve()
      } catch (error) {
        for (const row of batch) row.reject(error)
      }
    }
    flushing = false
  }
  return (run, seq) =>
    new Promise<void>((resolve, reject) => {
      queue.push({ run, seq, resolve, reject })
      if (!flushing) {
        flushing = true
        setImmediate(() => void flush())
      }
    })
}
