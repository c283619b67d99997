/**
 * What a run returned by a claim may hold, decided from the claimed record without a read —
 * each shortcut proven from the StateStore contract, never guessed from a default. These are
 * the only places the engine skips reading a claimed run's history or inbox; the conformance
 * suite tests each edge (conformance/src/claim_counters.ts).
 *
 * A run reaches a turn only through a claim that bumped its epoch: createRun with `claim`
 * (turns 1, epoch 1) or claimRuns (turns + 1, epoch + 1). Nothing else changes `turns`.
 */
import type { RunRecord } from '../contracts/records.ts'

/**
 * False only when the run cannot have a checkpoint: a checkpoint is written under a lease (a
 * fenced saveCheckpoint needs the run `running` at the writer's epoch, which only a claim
 * gives) or seeded by createRun (a fork). A claimed run with `turns === 1` had no lease
 * before this claim, so it holds none but a fork's seed. (A run that ran under a lease its
 * engine never claimed through the store would break this: no engine path does that — an
 * engine restarted under the same instance id, or a start whose acknowledgement was lost,
 * has its runs claimed again, see orphan_adopter.ts.)
 */
export function mayHaveCheckpoints(run: RunRecord): boolean {
  if (run.turns > 1) return true
  return run.origin?.kind === 'fork' && (run.origin.fromSeq ?? 0) > 0
}

/**
 * False only when no message was ever accepted for the run before the claim: `inboxSeq` counts
 * every accepted message, and the claim returns it as stored by the claim's own write. A
 * message accepted after the claim is seen by the turn later (a busy turn reads its inbox; a
 * suspend past a newer `inboxSeq` wakes the run at once).
 */
export function mayHaveMessages(run: RunRecord): boolean {
  return run.inboxSeq > 0
}
