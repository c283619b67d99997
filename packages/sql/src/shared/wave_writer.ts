/**
 * How one wave is written. Types only. Two writers exist: Postgres's one statement per wave
 * (postgres/wave_writer.ts) and the portable lock, decide, write (locked_wave_writer.ts, for
 * MySQL). apply_batch.ts drives them and turns what they saw into results.
 */
import type { CheckpointRecord, FenceState, RunRecord } from '@cairn/core/contracts'
import type { SqlSession } from './driver.ts'
import type { Key } from './admission_statements.ts'
import type { LoneOp } from './lone_write.ts'
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

/**
 * The singleton keys the wave's ends name (finishRun, cancelRun with `admission`), in lock
 * order, for a writer that guards them (WaveWriter.guardsEndKeys); it adds to `unsettled` each
 * that may have a waiter to promote once the wave commits (admission_settle.ts).
 */
export interface EndKeys {
  readonly keys: readonly Key[]
  readonly unsettled: Key[]
}

/** A singleton key the wave's creates ask to be admitted under: their limit, and how many they are. */
export interface AdmitKey extends Key {
  readonly limit: number
  readonly creates: number
}

/**
 * The wave's creates under singleton keys, for a writer that admits them in the wave's own
 * statement (WaveWriter.admitsInWave): it writes the wave only if every key admits all of its
 * creates; otherwise it writes nothing at all and sets `declined` (the batch then takes the
 * transactional pass whole).
 */
export interface WaveAdmission {
  readonly keys: readonly AdmitKey[]
  declined: boolean
}

/** What a guarded write is asked besides the wave (WaveWriter.write). */
export interface WaveGuards {
  endKeys?: EndKeys
  admission?: WaveAdmission
}

export interface WaveWriter {
  /**
   * True when a wave is one atomic statement whose observations need no transaction around
   * them: a one-wave batch then runs in autocommit, one round trip in all.
   */
  readonly selfContained: boolean
  /**
   * True when `write` takes `endKeys` FOR SHARE in the wave's own statement and reports which
   * may need settling (Postgres); otherwise every key an end names is probed after the commit.
   */
  readonly guardsEndKeys: boolean
  /**
   * True when `write` can admit a one-wave batch's creates in the wave's own statement
   * (`guards.admission`, Postgres); otherwise admission takes the transactional pass.
   */
  readonly admitsInWave: boolean
  /**
   * Writes a batch of one plain create, save or finish (lone_write.ts) as one autocommitted statement
   * on `pool`: true when the op applied; false when nothing was written and the batch is to be
   * written the usual way. Absent on a writer that has no cheaper way for it (Postgres: its
   * one-wave batch is already one statement). Atomic: the op is written whole or not at all.
   */
  readonly writeAlone?: (pool: SqlSession, op: LoneOp, now: number) => Promise<boolean>
  /**
   * Applies the wave's ops; returns one observation per op, in wave order (meaningless when
   * `guards.admission` was declined: nothing was written).
   */
  write(
    session: SqlSession,
    wave: Wave,
    now: number,
    wake: WakeRequest | null,
    guards?: WaveGuards,
  ): Promise<Observation[]>
}
