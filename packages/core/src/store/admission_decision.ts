/**
 * The one admission rule every store applies (CreateRunOp.admission), given the counts it
 * read under its lock on the key — after promoting the key's waiters into free slots, so
 * with room left nobody is queued and a new start never overtakes a waiter.
 */
import type { Admission, OpResult } from '../contracts/index.ts'

export interface AdmissionCounts {
  /** The key's runs holding a slot: pending, running, waiting, blocked or parked. */
  admitted: number
  /** The key's runs of status `queued`. */
  queued: number
}

export type AdmissionOutcome =
  | { kind: 'admitted' }
  | { kind: 'queued' }
  | { kind: 'full'; result: Extract<OpResult, { status: 'full' }> }

/**
 * `inherits`: the create names (inheritFrom) a run that holds the key and is not terminal —
 * the successor takes its slot without counting.
 */
export function decideAdmission(
  admission: Admission,
  counts: AdmissionCounts,
  inherits: boolean,
): AdmissionOutcome {
  if (inherits) return { kind: 'admitted' }
  const { admitted, queued } = counts
  if (admitted < admission.limit && queued === 0) return { kind: 'admitted' }
  const room = admission.maxQueueDepth === null || queued < admission.maxQueueDepth
  if (admission.onFull === 'queue' && room) return { kind: 'queued' }
  return { kind: 'full', result: { status: 'full', key: admission.key, admitted, queued } }
}

/** Statuses of a run holding its key's slot (SQL stores keep `blocked` as `waiting`). */
export const ADMITTED_STATUSES = ['pending', 'running', 'waiting', 'blocked', 'parked'] as const
