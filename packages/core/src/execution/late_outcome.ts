/**
 * An outcome that arrived after the run was cancelled (a step that was in flight): recorded
 * at its position for the timeline and never delivered — the body has stopped and the run
 * stays cancelled. Written under the epoch the cancel left (a cancelled run accepts
 * checkpoint writes at its current epoch, nothing else); dropped when the lease went to
 * another engine instead (its replay runs the step).
 */
import type { CheckpointRecord, OpResult, StoreOp } from '../contracts/index.ts'
import type { Committer } from '../engine/committer.ts'

/**
 * Saves `record` (undelivered: no order) under `epoch`, the turn's own; `fenced` is the
 * result of a write that was fenced off, or null when none was tried yet.
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
  const late: CheckpointRecord = { ...record, order: null }
  const op: StoreOp = {
    type: 'saveCheckpoint',
    fence: { runId: late.runId, epoch: at },
    checkpoint: late,
  }
  committer.submit(
    op,
    (result) => {
      // Our own epoch first (a run this turn ended cancelled); the cancel's if it moved on.
      if (result.status === 'fenced' && result.current?.epoch !== at)
        saveLateOutcome(committer, late, at, result)
    },
    () => {}, // best effort: the run is cancelled either way
  )
}
