/**
 * A batch as waves. node-postgres and mysql2 do not pipeline: every statement is a round trip,
 * so one statement per op would cost 50 round trips for a 50-op batch. Instead, ops of
 * different runs commute (each op touches only its own run and that run's checkpoints), so
 * the batch is cut into waves that keep each run's op order, and each wave runs as one
 * multi-row statement per kind of write (or, in Postgres, one statement in all).
 *
 * A run's ops form steps: any saveCheckpoint ops of distinct seqs, then at most one write to
 * the run row (create, a lease write, cancel). A step's ops can share a wave because saves do
 * not change the run row: every save sees the run as it was before the step, which is what it
 * would have seen in order, and the run write comes after them. Without notices, wave k holds
 * the k-th step of every run. The engine's usual batch (each run's new checkpoints and maybe
 * its finish, plus new runs) is one wave.
 *
 * A finish or cancel carrying a notice (a child telling its parent) also writes the target
 * run's row (inbox counter, wake-up) and inbox, so it lands in the first wave that fits both
 * runs' steps (a later one than its own run alone would need, when the target was written).
 * Notices commute with the target's saves and with each other (each is accepted under the
 * next inbox seq, in batch order, by one write per target), so children of one parent
 * finishing in one batch share a wave; a write to the target's row (its own suspend, a
 * delivery) never shares one with a notice: which comes first decides what it sees.
 */
import type { StoreOp } from '@cairn/core/contracts'
import { noticeOf, runIdOf } from './op_columns.ts'

/** An op and its index in the batch (its result goes there). */
export interface PlannedOp {
  index: number
  op: StoreOp
}

export type Wave = PlannedOp[]

interface RunStep {
  wave: number
  /** The step ended with a run write: the next op of this run starts a new step. */
  closed: boolean
  /** The step holds a notice to this run: a run write of it must come in a later wave. */
  noticed: boolean
  seqs: Set<number>
}

export function planWaves(ops: readonly StoreOp[]): Wave[] {
  const waves: Wave[] = []
  const steps = new Map<string, RunStep>()
  ops.forEach((op, index) => {
    const wave = place(steps, op)
    ;(waves[wave] ??= []).push({ index, op })
  })
  return waves
}

/** The wave of `op`, updating the steps of its run and of its notice's target. */
function place(steps: Map<string, RunStep>, op: StoreOp): number {
  const runId = runIdOf(op)
  const target = noticeOf(op)?.runId
  const own = steps.get(runId)
  let wave = own === undefined ? 0 : fits(own, op) ? own.wave : own.wave + 1
  if (target !== undefined) wave = Math.max(wave, noticeWave(steps.get(target)))
  const step = own !== undefined && own.wave === wave && fits(own, op) ? own : newStep(wave)
  if (op.type === 'saveCheckpoint') step.seqs.add(op.checkpoint.seq)
  else step.closed = true
  steps.set(runId, step)
  if (target !== undefined) {
    const theirs = steps.get(target)
    const noticed = theirs !== undefined && theirs.wave === wave ? theirs : newStep(wave)
    noticed.noticed = true
    steps.set(target, noticed)
  }
  return wave
}

/** A save joins an open step unless its seq is already there; a run write, unless noticed. */
function fits(step: RunStep, op: StoreOp): boolean {
  if (step.closed) return false
  return op.type === 'saveCheckpoint' ? !step.seqs.has(op.checkpoint.seq) : !step.noticed
}

/** The first wave a notice to a run with this step may take: after the run's last run write. */
function noticeWave(step: RunStep | undefined): number {
  if (step === undefined) return 0
  return step.closed ? step.wave + 1 : step.wave
}

function newStep(wave: number): RunStep {
  return { wave, closed: false, noticed: false, seqs: new Set() }
}
