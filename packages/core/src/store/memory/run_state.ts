import { isTerminalStatus } from '../run_statuses.ts'
import type {
  CheckpointRecord,
  InboxMessage,
  RunRecord,
  RunStatus,
  SearchAttributeValue,
} from '../../contracts/index.ts'

/**
 * One run as the memory store holds it. `run` never leaves the store: it is changed in
 * place and handed out as a copy, so no write deep-clones anything.
 */
export interface RunState {
  run: RunRecord
  /** The run's checkpoints by seq. */
  checkpoints: Map<number, CheckpointRecord>
  /** Messages accepted and not yet consumed, in seq order. */
  inbox: InboxMessage[]
  /** Dedupe ids accepted so far, with the seq each got (consumed messages included). */
  dedupeIds: Map<string, number>
  /** Search attributes by name (values owned by the store: Dates are never handed out). */
  searchAttributes: Map<string, SearchAttributeValue>
  /** Step log records by seq: JSON text (step_log_rules.ts) and when it last changed. */
  stepLogs: Map<number, { text: string; updatedAt: number }>
  /** The message names that wake the run while it waits (its last suspend's `wakeOn`); null: any. */
  wakeOn: ReadonlySet<string> | null
  /** The lease epoch of the suspend that wrote `wakeOn`: names of another epoch count as null. */
  wakeEpoch: number
  /** Bumped whenever the run is re-indexed for claims: index entries with an older token are stale. */
  claimToken: number
  /** True while the run has a live entry in the claim index. */
  indexed: boolean
}

export function isTerminal(status: RunStatus): boolean {
  return isTerminalStatus(status)
}

/** When a claim may take the run, or null when nothing makes it claimable by itself. */
export function claimableAt(run: RunRecord): number | null {
  const status = run.status
  if (status === 'pending' || status === 'waiting' || status === 'blocked' || status === 'running')
    return run.availableAt
  return null
}

export function newRunState(run: RunRecord): RunState {
  return {
    run,
    checkpoints: new Map(),
    inbox: [],
    dedupeIds: new Map(),
    searchAttributes: new Map(),
    stepLogs: new Map(),
    wakeOn: null,
    wakeEpoch: 0,
    claimToken: 0,
    indexed: false,
  }
}
