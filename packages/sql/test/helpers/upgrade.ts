/**
 * What a database migrated before inboxes (revision 1) must do once a current store has
 * opened it: its runs read with an empty inbox, and they accept, count and return messages.
 */
import assert from 'node:assert/strict'
import type { StateStore } from '@cairn/core/contracts'

/** The run every revision-1 fixture holds: pending, created at 1_000. */
export const OLD_RUN = 'run-from-revision-1'

export async function checkUpgradedRun(store: StateStore): Promise<void> {
  const before = await store.getRun(OLD_RUN)
  assert.equal(before?.inboxSeq, 0, 'a run from before inboxes has accepted no message')
  const op = {
    type: 'deliverMessage' as const,
    message: { runId: OLD_RUN, kind: 'signal' as const, name: 'go', dedupeId: 'd-1', payload: '1' },
  }
  assert.deepEqual(await store.applyBatch([op], 2_000), [
    { status: 'delivered', seq: 1, duplicate: false },
  ])
  assert.deepEqual(
    (await store.loadInbox(OLD_RUN)).map((m) => [m.seq, m.name, m.dedupeId, m.payload]),
    [[1, 'go', 'd-1', '1']],
  )
  assert.equal((await store.getRun(OLD_RUN))?.inboxSeq, 1)
}
