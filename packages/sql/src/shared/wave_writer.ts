/**
 * How one wave is written. Types only. Two writers exist: Postgres's one statement per wave
 * (postgres/wave_writer.ts) and the portable lock, decide, write (locked_wave_writer.ts, for
 * MySQL). apply_batch.ts drives them and turns what they saw into results.
 */
import type { CheckpointRecord, FenceState, RunRecord } from '@cairn/core/contracts'
import type { SqlSession } from './driver.ts'
import type { Wave } from './wave_plan.ts'

/** What a writer saw of one op. */
export type Observation =
  | {
      applied: true
      /** The epoch after a cancel (incremented); null for other ops. */
      epoch: number | null
      /** What a suspend stored as `availableAt`; absent: its `wakeAt` (the run was not woken). */
      availableAt?: number | null
      /** A delivery: the message's seq, and whether its dedupe id was accepted before. */
      delivered?: { seq: number; duplicate: boolean }
    }
  | {
      applied: false
      /** The run's status and epoch the op was checked against; null: no such run. */
      fence: FenceState | null
      /** The stored run, for a create that found its id taken (null if not read). */
      run: RunRecord | null
      /** The stored checkpoint at the op's seq, for a save (null if none or not read). */
      checkpoint: CheckpointRecord | null
    }

/**
 * Ask the writer to publish a wake-up with the batch's last wave: `earliest` is the earliest
 * `availableAt` made claimable by the earlier waves (null: none); the writer adds its own
 * wave's and, when there is any, publishes it in the same transaction. Writers of stores
 * without push ignore it.
 */
export interface WakeRequest {
  earliest: number | null
}

export interface WaveWriter {
  /**
   * True when a wave is one atomic statement whose observations need no transaction around
   * them: a one-wave batch then runs in autocommit, one round trip in all.
   */
  readonly selfContained: boolean
  /** Applies the wave's ops; returns one observation per op, in wave order. */
  write(
    session: SqlSession,
    wave: Wave,
    now: number,
    wake: WakeRequest | null,
  ): Promise<Observation[]>
}
