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
 * would have seen in order, and the run write comes after them. Wave k holds the k-th step of
 * every run. The engine's usual batch (each run's new checkpoints and maybe its finish, plus
 * new runs) is one wave.
 */
import type { StoreOp } from '@cairn/core/contracts'
import { runIdOf } from './op_columns.ts'

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

/** The wave of `op`, updating its run's current step. */
function place(steps: Map<string, RunStep>, op: StoreOp): number {
  const runId = runIdOf(op)
  const step = steps.get(runId)
  const joins = step !== undefined && !step.closed && fitsStep(step, op)
  if (joins) {
    addToStep(step, op)
    return step.wave
  }
  const next: RunStep = {
    wave: step === undefined ? 0 : step.wave + 1,
    closed: false,
    seqs: new Set(),
  }
  addToStep(next, op)
  steps.set(runId, next)
  return next.wave
}

/** A save joins an open step unless its seq is already there (then order matters). */
function fitsStep(step: RunStep, op: StoreOp): boolean {
  return op.type !== 'saveCheckpoint' || !step.seqs.has(op.checkpoint.seq)
}

function addToStep(step: RunStep, op: StoreOp): void {
  if (op.type === 'saveCheckpoint') step.seqs.add(op.checkpoint.seq)
  else step.closed = true
}
