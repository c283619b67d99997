/**
 * A run's recorded checkpoints, loaded once per turn. Lookups by position are O(1) and the
 * recorded outcomes come out in the order they were first delivered, so a resume costs
 * O(history) for that run.
 */
import type { CheckpointRecord } from '../contracts/records.ts'

export class History {
  private readonly bySeq = new Map<number, CheckpointRecord>()
  /** Completed/failed checkpoints in delivery order. */
  readonly deliveries: CheckpointRecord[]
  /** Highest delivery order recorded (0 if none). */
  readonly lastOrder: number

  constructor(records: readonly CheckpointRecord[]) {
    for (const record of records) this.bySeq.set(record.seq, record)
    this.deliveries = records
      .filter((r) => r.order !== null && (r.status === 'completed' || r.status === 'failed'))
      .sort((a, b) => (a.order as number) - (b.order as number))
    this.lastOrder = this.deliveries.at(-1)?.order ?? 0
  }

  static readonly empty = new History([])

  at(seq: number): CheckpointRecord | undefined {
    return this.bySeq.get(seq)
  }

  get size(): number {
    return this.bySeq.size
  }
}
