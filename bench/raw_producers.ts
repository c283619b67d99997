/**
 * What the raw rows share: the workload's producers (C of them, writing W runs of S rows, each
 * row awaiting its own durable commit) and the group-commit loop of the batched variants (every
 * row queued since the last commit goes in the next one, one commit in flight at a time).
 */
import type { RawResult } from './raw_sqlite.ts'
import { C, S, W, percentile, round } from './workload.ts'

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

/** A raw row's writer: its Write, and what it releases once the producers are done. */
export interface RawWriter {
  write: Write
  close(): Promise<void>
}

/** One connection taken for lone commits (RawRow's marginal), released after. */
export interface SoloConnection {
  commit(i: number): Promise<void>
  release(): void
}

/**
 * A raw row's figures: the producers through `writer`; then, once it is closed (its pool is
 * free again), one lone commit at a time `samples` times on one connection (`openSolo`): the
 * median is a sequential step's floor.
 */
export async function measureRaw(
  writer: RawWriter,
  openSolo: () => Promise<SoloConnection>,
  samples: number,
): Promise<RawResult> {
  const wall = await produce(writer.write)
  await writer.close()
  const solo = await openSolo()
  const latencies: number[] = []
  try {
    for (let i = 0; i < samples; i++) {
      const started = performance.now()
      await solo.commit(i)
      latencies.push(performance.now() - started)
    }
  } finally {
    solo.release()
  }
  return {
    wall_s: round(wall, 3),
    steps_per_s: round((W * S) / wall, 0),
    per_step_marginal_ms: round(percentile(latencies, 50), 3),
  }
}
