import type { Fence, OpResult } from '../../contracts/index.ts'
import type { RunState } from './run_state.ts'

/** Shared and frozen: the hot path (one result per checkpoint write) allocates nothing. */
export const APPLIED: OpResult = Object.freeze({ status: 'applied' })

/** True when a write under `fence` may apply: the run exists, runs, and has that epoch. */
export function holdsLease(state: RunState | undefined, fence: Fence): state is RunState {
  return (
    state !== undefined && state.run.status === 'running' && state.run.leaseEpoch === fence.epoch
  )
}

/**
 * True when a checkpoint may be saved under `fence`: the lease is held, or the run was
 * cancelled and is still at that epoch (a late outcome, recorded for the timeline).
 */
export function maySaveCheckpoint(state: RunState | undefined, fence: Fence): state is RunState {
  if (state === undefined || state.run.leaseEpoch !== fence.epoch) return false
  return state.run.status === 'running' || state.run.status === 'cancelled'
}

/** What a write that does not hold the lease reports: the state it found (null: no run). */
export function fencedResult(state: RunState | undefined): OpResult {
  if (state === undefined) return { status: 'fenced', current: null }
  return { status: 'fenced', current: { status: state.run.status, epoch: state.run.leaseEpoch } }
}
