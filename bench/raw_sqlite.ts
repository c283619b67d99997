/**
 * The raw limit on this machine: node:sqlite single-row inserts by C concurrent producers,
 * each awaiting its own commit, coalesced into one transaction per macrotask (group commit),
 * under the same durability setting as the engine row it is compared with.
 */
import { DatabaseSync } from 'node:sqlite'
import { produce } from './raw_producers.ts'
import { S, W } from './workload.ts'

export interface RawResult {
  wall_s: number
  steps_per_s: number
  /** Median latency of one single-row commit, alone: the floor under a sequential step. */
  per_step_marginal_ms: number
}

export async function rawSqlite(path: string, synchronous: 'FULL' | 'NORMAL'): Promise<RawResult> {
  const db = new DatabaseSync(path)
  db.exec(`PRAGMA journal_mode=WAL; PRAGMA synchronous=${synchronous};
    CREATE TABLE rows (run TEXT NOT NULL, seq INTEGER NOT NULL, body TEXT NOT NULL, PRIMARY KEY (run, seq)) WITHOUT ROWID`)
  const insert = db.prepare('INSERT INTO rows (run, seq, body) VALUES (?, ?, ?)')
  let queue: Array<{ run: string; seq: number; resolve: () => void }> = []
  let scheduled = false
  const flush = () => {
    scheduled = false
    const batch = queue
    queue = []
    db.exec('BEGIN IMMEDIATE')
    for (const row of batch) insert.run(row.run, row.seq, '{"i":1,"ok":true,"v":1}')
    db.exec('COMMIT')
    for (const row of batch) row.resolve()
  }
  const write = (run: string, seq: number) =>
    new Promise<void>((resolve) => {
      queue.push({ run, seq, resolve })
      if (!scheduled) {
        scheduled = true
        setImmediate(flush)
      }
    })
  const wall = await produce(write)
  const commitMs = soloCommitLatency(db, insert)
  db.close()
  return {
    wall_s: Math.round(wall * 1000) / 1000,
    steps_per_s: Math.round((W * S) / wall),
    per_step_marginal_ms: commitMs,
  }
}

function soloCommitLatency(db: DatabaseSync, insert: ReturnType<DatabaseSync['prepare']>): number {
  const samples: number[] = []
  for (let i = 0; i < 300; i++) {
    const t0 = performance.now()
    db.exec('BEGIN IMMEDIATE')
    insert.run('solo', i, '{"i":1,"ok":true,"v":1}')
    db.exec('COMMIT')
    samples.push(performance.now() - t0)
  }
  samples.sort((a, b) => a - b)
  return Math.round((samples[150] as number) * 1000) / 1000
}
