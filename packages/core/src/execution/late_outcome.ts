/**
 * An outcome that arrived after the run was cancelled (a step that was in flight): recorded at
 * its position for the timeline and never delivered — the body has stopped and the run stays
 * cancelled. Written under the epoch the cancel left (a cancelled run accepts checkpoint writes
 * at its current epoch, nothing else); dropped when the lease went to another engine instead
 * (its replay runs the step) or the run ended otherwise.
 */
import type { CheckpointRecord } from '../contracts/records.ts'
import type { OpResult, StoreOp } from '../contracts/state_store.ts'
import type { Committer } from '../engine/committer.ts'

/**
 * Save `record` (undelivered: `order` null) after the turn of `runId` at `epoch` lost its
 * run. `fenced`: the refusal a write of this turn met, or null when none was tried yet (then
 * the turn's own epoch is tried first: a run the turn itself ended cancelled keeps it).
 */
export function saveLateOutcome(
  committer: Committer,
  record: CheckpointRecord,
  epoch: number,
  fenced: OpResult | null,
): void {
  const current = fenced?.status === 'fenced' ? fenced.current : null
  if (fenced !== null && current?.status !== 'cancelled') return
  const at = current?.epoch ?? epoch
  const op: StoreOp = {
    type: 'saveCheckpoint',
    fence: { runId: record.runId, epoch: at },
    checkpoint: { ...record, order: null },
  }
  committer.submit(
    op,
    (result) => {
      // The cancel moved the epoch on: try again under the one it left.
      if (result.status === 'fenced' && result.current?.epoch !== at)
        saveLateOutcome(committer, record, at, result)
    },
    () => {}, // best effort: the run is cancelled either way
  )
}
