/**
 * What a database migrated by an older release (revision 1: before inboxes; revision 2: before
 * children; revision 3: before broadcast events; revision 7: before checkpoint inputs) must do
 * once a current store has opened it: its runs read with an empty inbox and no parent, their
 * checkpoints with no input, they accept, count and return messages, and they can have
 * children, listed under them, whose outcome reaches their inbox.
 */
import assert from 'node:assert/strict'
import type { StateStore, StoreOp } from '@cairn/core/contracts'

/** The revisions of older releases, and what came after them. */
export const OLD_REVISIONS: ReadonlyArray<[revision: number, before: string]> = [
  [1, 'before inboxes'],
  [2, 'before children'],
  [3, 'before broadcast events'],
  [7, 'before checkpoint inputs'],
]

/** The run every old fixture holds: pending, created at 1_000. */
export const OLD_RUN = 'run-from-an-old-revision'

/** The INSERT of OLD_RUN, in columns every revision has, for the table `runs` (qualified). */
export function insertOldRun(runs: string): string {
  return `INSERT INTO ${runs} (id, workflow, version, status, input, created_at, updated_at,
    available_at, lease_epoch, turns) VALUES ('${OLD_RUN}', 'w', 'v1', 'pending', '{}', 1000, 1000, 1000, 0, 0)`
}

/** A completed registered step of OLD_RUN, in columns every revision has, for `runs` and `checkpoints`. */
export function insertOldCheckpoint(runs: string, checkpoints: string): string {
  return `INSERT INTO ${checkpoints} (run_key, seq, name, kind, status, attempts, delivery_order,
    output, error, wake_at, started_at, updated_at)
    SELECT r.key, 1, 'charge', 'step', 'completed', 1, 1, '"ok"', NULL, NULL, 1000, 1000
    FROM ${runs} r WHERE r.id = '${OLD_RUN}'`
}

export async function checkUpgradedRun(store: StateStore): Promise<void> {
  assert.deepEqual(
    (await store.loadCheckpoints(OLD_RUN)).map((c) => [c.seq, c.kind, c.output, c.input]),
    [[1, 'step', '"ok"', null]],
    'a checkpoint from before inputs reads with none',
  )
  const before = await store.getRun(OLD_RUN)
  assert.deepEqual(
    [before?.inboxSeq, before?.parentRunId, before?.parentSeq],
    [0, null, null],
    'a run from before inboxes and children: no message, no parent',
  )
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
  await checkChildOf(store)
}

async function checkChildOf(store: StateStore): Promise<void> {
  const child = `${OLD_RUN}/0`
  const create: StoreOp = {
    type: 'createRun',
    run: {
      id: child,
      workflow: 'w',
      version: 'v1',
      input: '{}',
      createdAt: 3_000,
      parent: { runId: OLD_RUN, seq: 0 },
    },
    claim: { owner: 'engine', leaseMs: 1_000 },
  }
  const finish: StoreOp = {
    type: 'finishRun',
    fence: { runId: child, epoch: 1 },
    status: 'completed',
    output: '2',
    error: null,
    notify: { runId: OLD_RUN, kind: 'signal', name: 'child', dedupeId: child, payload: '2' },
  }
  assert.deepEqual(await store.applyBatch([create], 3_000), [{ status: 'applied', epoch: 1 }])
  assert.deepEqual(await store.applyBatch([finish], 3_001), [{ status: 'applied' }])
  const listed = await store.listRuns({ parentRunId: OLD_RUN })
  assert.deepEqual(
    listed.runs.map((r) => [r.id, r.parentRunId, r.parentSeq]),
    [[child, OLD_RUN, 0]],
  )
  assert.deepEqual(
    (await store.loadInbox(OLD_RUN)).map((m) => [m.seq, m.dedupeId]),
    [
      [1, 'd-1'],
      [2, child],
    ],
  )
}
