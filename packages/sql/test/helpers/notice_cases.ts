/**
 * Notices (a finishing or cancelled child telling its parent, `notify`) where a SQL store's
 * batching could go wrong and the conformance suite, one op at a time, cannot look: notices
 * sharing a batch with their parent's own writes (order decides what each sees), several
 * notices to one parent in one wave, parents created or finished earlier in the batch, and a
 * parent held by a concurrent transaction.
 */
import assert from 'node:assert/strict'
import type { MessageToDeliver, OpResult, StateStore, StoreOp } from '@cairn/core/contracts'
import {
  T0,
  againstHeld,
  againstHeldDelivery,
  startRun,
  suspendForSignal,
  type AdminSession,
  type RaceTables,
} from './inbox_races.ts'

/** The notice child `child` sends `parent` (deduplicated by the child's id, as the engine does). */
function notice(parent: string, child: string, dedupeId = `child:${child}`): MessageToDeliver {
  return { runId: parent, kind: 'signal', name: 'child', dedupeId, payload: `"${child}"` }
}

/** Child `child` (epoch 1) completing, telling `parent`. */
export function finishTelling(
  child: string,
  parent: string,
  dedupeId?: string,
  epoch = 1,
): StoreOp {
  return {
    type: 'finishRun',
    fence: { runId: child, epoch },
    status: 'completed',
    output: '1',
    error: null,
    notify: notice(parent, child, dedupeId),
  }
}

function cancelTelling(child: string, parent: string): StoreOp {
  return { type: 'cancelRun', runId: child, error: '"stop"', notify: notice(parent, child) }
}

const pending = (id: string): StoreOp => ({
  type: 'createRun',
  run: { id, workflow: 'w', version: 'v1', input: '{}', createdAt: T0 },
})

/** The inbox of `runId` as [seq, dedupe id] pairs. */
async function inbox(store: StateStore, runId: string): Promise<[number, string | null][]> {
  return (await store.loadInbox(runId)).map((m) => [m.seq, m.dedupeId])
}

async function waitingState(store: StateStore, runId: string) {
  const run = await store.getRun(runId)
  return [run?.status, run?.availableAt, run?.inboxSeq]
}

const APPLIED: OpResult = { status: 'applied' }

/** A parent's suspend sees a notice earlier in its batch; a later notice wakes it; two share a wave. */
async function noticesAndTheirParentsInOneBatch(store: StateStore): Promise<void> {
  const runs = ['p', 'q', 'r', 'c1', 'c2', 'c3', 'c4', 'c5']
  await store.applyBatch(runs.map(startRun), T0)
  await store.applyBatch([suspendForSignal('q', null)], T0 + 1)
  const results = await store.applyBatch(
    [
      finishTelling('c1', 'p'),
      suspendForSignal('p', null),
      suspendForSignal('r', null),
      finishTelling('c2', 'r'),
      finishTelling('c3', 'q'),
      finishTelling('c4', 'q'),
      finishTelling('c5', 'q', 'child:c3'),
    ],
    T0 + 5,
  )
  assert.deepEqual(results, [
    APPLIED,
    { status: 'applied', availableAt: T0 + 5 },
    { status: 'applied', availableAt: null },
    APPLIED,
    APPLIED,
    APPLIED,
    APPLIED,
  ])
  assert.deepEqual(await inbox(store, 'p'), [[1, 'child:c1']])
  assert.deepEqual(await inbox(store, 'r'), [[1, 'child:c2']])
  assert.deepEqual(
    await inbox(store, 'q'),
    [
      [1, 'child:c3'],
      [2, 'child:c4'],
    ],
    'two notices to one parent in one batch, a third of a dedupe id already taken skipped',
  )
  assert.deepEqual(await waitingState(store, 'p'), ['waiting', T0 + 5, 1], 'p')
  assert.deepEqual(await waitingState(store, 'r'), ['waiting', T0 + 5, 1], 'r woken')
  assert.deepEqual(await waitingState(store, 'q'), ['waiting', T0 + 5, 2], 'q woken')
}

/** A notice sees its parent as the batch left it so far: finished, created, not yet created. */
async function noticesAndTheirParentsLifecycle(store: StateStore): Promise<void> {
  await store.applyBatch(['p1', 'p2', 'c1', 'c2', 'c3', 'x', 'y'].map(startRun), T0)
  const results = await store.applyBatch(
    [
      {
        type: 'finishRun',
        fence: { runId: 'p1', epoch: 1 },
        status: 'completed',
        output: '1',
        error: null,
      },
      finishTelling('c1', 'p1'),
      finishTelling('c2', 'p2'),
      {
        type: 'finishRun',
        fence: { runId: 'p2', epoch: 1 },
        status: 'completed',
        output: '1',
        error: null,
      },
      finishTelling('c3', 'p2', undefined, 9),
      cancelTelling('x', 'n1'),
      pending('n1'),
      pending('n2'),
      cancelTelling('y', 'n2'),
      finishTelling('c1', 'p2'),
    ],
    T0 + 5,
  )
  assert.deepEqual(
    results.map((r) => r.status),
    [
      'applied',
      'applied',
      'applied',
      'applied',
      'fenced',
      'applied',
      'applied',
      'applied',
      'applied',
      'fenced',
    ],
  )
  assert.deepEqual(await inbox(store, 'p1'), [], 'finished before the notice: skipped')
  assert.deepEqual(await inbox(store, 'p2'), [[1, 'child:c2']], 'finished after it: kept')
  assert.deepEqual(await inbox(store, 'n1'), [], 'created after the notice: it found no run')
  assert.deepEqual(await inbox(store, 'n2'), [[1, 'child:y']], 'created before it')
  assert.equal((await store.getRun('c1'))?.status, 'completed')
  assert.equal((await store.getRun('x'))?.status, 'cancelled')
}

/** The scenarios of one store, by title. */
export const NOTICE_CASES: ReadonlyArray<
  [title: string, body: (store: StateStore) => Promise<void>]
> = [
  [
    "notices in a batch with their parents' suspends keep batch order; two share a parent",
    noticesAndTheirParentsInOneBatch,
  ],
  [
    'a notice sees its parent finished, created or missing as the batch left it',
    noticesAndTheirParentsLifecycle,
  ],
]

/** A concurrent transaction cancels the parent: the notice waits for it, then is skipped. */
async function noticeToParentCancelledConcurrently(
  store: StateStore,
  admin: AdminSession,
  t: RaceTables,
): Promise<void> {
  await store.applyBatch([startRun('p'), startRun('c')], T0)
  await admin.query('BEGIN')
  await admin.query(`UPDATE ${t.runs} SET status = 'cancelled', available_at = NULL,
    lease_epoch = lease_epoch + 1 WHERE id = 'p'`)
  const results = await againstHeld(admin, () =>
    store.applyBatch([finishTelling('c', 'p')], T0 + 5),
  )
  assert.deepEqual(results, [APPLIED])
  assert.equal((await store.getRun('c'))?.status, 'completed')
  assert.deepEqual(await inbox(store, 'p'), [])
  assert.equal((await store.getRun('p'))?.inboxSeq, 0)
}

/** A concurrent delivery to the waiting parent: the notice takes the next seq and wakes it. */
async function noticeAfterConcurrentDelivery(
  store: StateStore,
  admin: AdminSession,
  t: RaceTables,
): Promise<void> {
  await store.applyBatch([startRun('p'), startRun('c')], T0)
  await store.applyBatch([suspendForSignal('p', null)], T0 + 1)
  const write = () => store.applyBatch([finishTelling('c', 'p')], T0 + 5)
  assert.deepEqual(await againstHeldDelivery(admin, t, 'theirs', write, 'p'), [APPLIED])
  assert.deepEqual(await inbox(store, 'p'), [
    [1, 'theirs'],
    [2, 'child:c'],
  ])
  assert.deepEqual(await waitingState(store, 'p'), ['waiting', T0 + 5, 2])
}

/** A concurrent delivery of the notice's dedupe id: the notice is the duplicate, skipped. */
async function noticeRacingItsDedupeId(
  store: StateStore,
  admin: AdminSession,
  t: RaceTables,
): Promise<void> {
  await store.applyBatch([startRun('p'), startRun('c')], T0)
  const write = () => store.applyBatch([finishTelling('c', 'p')], T0 + 5)
  assert.deepEqual(await againstHeldDelivery(admin, t, 'child:c', write, 'p'), [APPLIED])
  assert.deepEqual(await inbox(store, 'p'), [[1, 'child:c']])
  assert.equal((await store.loadInbox('p'))[0]?.payload, '"theirs"')
  assert.equal((await store.getRun('c'))?.status, 'completed')
}

/** The scenarios against a concurrent transaction holding the parent, by title. */
export const NOTICE_RACES: ReadonlyArray<
  [title: string, race: (store: StateStore, admin: AdminSession, t: RaceTables) => Promise<void>]
> = [
  [
    'a notice to a parent a concurrent transaction cancels waits for it, then is skipped',
    noticeToParentCancelledConcurrently,
  ],
  [
    'a notice waiting on an uncommitted delivery to its parent takes the next seq and wakes it',
    noticeAfterConcurrentDelivery,
  ],
  [
    'a notice racing an uncommitted delivery of its dedupe id is skipped as the duplicate',
    noticeRacingItsDedupeId,
  ],
]

/**
 * A typical engine batch of 40 running runs in which 12 are children finishing and telling
 * 3 waiting parents (some of one parent, a dedupe id already taken, a finished parent, an
 * unknown one), and new children are created beside a top-level run. Returns how many
 * statements it took.
 */
export async function childrenInATypicalBatch(
  store: StateStore,
  statements: () => number,
  save: (runId: string, seq: number) => StoreOp,
): Promise<number> {
  const ids = Array.from({ length: 40 }, (_, i) => `run-${String(i).padStart(2, '0')}`)
  const parents = ['parent-a', 'parent-b', 'parent-c', 'parent-done']
  await store.applyBatch([...ids, ...parents].map(startRun), T0)
  await store.applyBatch(
    [
      ...parents.slice(0, 3).map((id) => suspendForSignal(id, null)),
      {
        type: 'finishRun',
        fence: { runId: 'parent-done', epoch: 1 },
        status: 'completed',
        output: '1',
        error: null,
      },
    ],
    T0 + 1,
  )
  const tellings = ids.slice(0, 12).map((id, i) => {
    const parent = ['parent-a', 'parent-b', 'parent-c', 'parent-done', 'nobody'][i % 5] as string
    return finishTelling(id, parent, i === 5 ? 'child:run-00' : undefined)
  })
  const batch = [
    ...ids.map((id) => save(id, 0)),
    ...tellings,
    ...Array.from({ length: 5 }, (_, i) => ({
      type: 'createRun' as const,
      run: {
        id: `parent-a/${i}`,
        workflow: 'w',
        version: 'v1',
        input: '{}',
        createdAt: T0 + 2,
        parent: { runId: 'parent-a', seq: i },
      },
    })),
    pending('top-level'),
  ]
  const before = statements()
  const results = await store.applyBatch(batch, T0 + 2)
  const used = statements() - before
  assert.ok(
    results.every((r) => r.status === 'applied'),
    JSON.stringify(results.filter((r) => r.status !== 'applied')),
  )
  // run-00, 05, 10 → a (05 repeats 00's dedupe id); 01, 06, 11 → b; 02, 07 → c.
  assert.deepEqual(await inbox(store, 'parent-a'), [
    [1, 'child:run-00'],
    [2, 'child:run-10'],
  ])
  assert.deepEqual(await inbox(store, 'parent-b'), [
    [1, 'child:run-01'],
    [2, 'child:run-06'],
    [3, 'child:run-11'],
  ])
  assert.deepEqual(await inbox(store, 'parent-c'), [
    [1, 'child:run-02'],
    [2, 'child:run-07'],
  ])
  assert.deepEqual(await inbox(store, 'parent-done'), [])
  for (const id of parents.slice(0, 3)) {
    assert.deepEqual((await waitingState(store, id)).slice(0, 2), ['waiting', T0 + 2], id)
  }
  const top = await store.getRun('top-level')
  assert.deepEqual([top?.parentRunId, top?.parentSeq], [null, null], 'created beside children')
  const children = await store.listRuns({ parentRunId: 'parent-a' })
  assert.deepEqual(
    children.runs.map((r) => [r.id, r.parentRunId, r.parentSeq]),
    [4, 3, 2, 1, 0].map((i) => [`parent-a/${i}`, 'parent-a', i]),
  )
  return used
}
