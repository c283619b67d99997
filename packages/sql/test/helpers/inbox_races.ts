/**
 * The inbox against a concurrent transaction, on any SQL store: an admin connection holds a
 * delivery uncommitted (the run row locked, its counter moved, maybe its message stored) while
 * the store writes the same run, then commits. Each scenario checks that the store's write
 * waited for it and saw it: a suspend that had not seen the message leaves the run claimable
 * now (no lost wake-up), and a resent dedupe id is reported as the duplicate it is.
 */
import assert from 'node:assert/strict'
import type { OpResult, StateStore, StoreOp } from '@cairn/core/contracts'

/** A connection of the test's own: pg.Client and mysql2's Connection both fit. */
export interface AdminSession {
  query(sql: string): Promise<unknown>
}

/** The store's tables, qualified (and quoted) for the admin session. */
export interface RaceTables {
  runs: string
  messages: string
}

export const T0 = 2_200_000_000_000

/** A run created leased (running, epoch 1). */
export const startRun = (id: string): StoreOp => ({
  type: 'createRun',
  run: { id, workflow: 'w', version: 'v1', input: '{}', createdAt: T0 },
  claim: { owner: 'engine-a', leaseMs: 30_000 },
})

export function deliver(runId: string, dedupeId: string | null, payload = '"ours"'): StoreOp {
  return {
    type: 'deliverMessage',
    message: { runId, kind: 'signal', name: 'go', dedupeId, payload },
  }
}

/** A suspend of run `runId` (epoch 1) waiting for signal "go", having seen `inboxSeen` messages. */
export function suspendForSignal(runId: string, wakeAt: number | null, inboxSeen = 0): StoreOp {
  return {
    type: 'suspendRun',
    fence: { runId, epoch: 1 },
    wakeAt,
    waitingOn: 'signal "go"',
    inboxSeen,
  }
}

/** Runs `write` while `admin` holds an uncommitted delivery to run `runId`; commits it after 200 ms. */
export async function againstHeldDelivery(
  admin: AdminSession,
  t: RaceTables,
  dedupeId: string,
  write: () => Promise<OpResult[]>,
  runId = 'a',
): Promise<OpResult[]> {
  await admin.query('BEGIN')
  await admin.query(`UPDATE ${t.runs} SET inbox_seq = inbox_seq + 1 WHERE id = '${runId}'`)
  await admin.query(`INSERT INTO ${t.messages} (run_key, seq, kind, name, dedupe_id, payload, accepted_at)
    SELECT r.key, r.inbox_seq, 'signal', 'go', '${dedupeId}', '"theirs"', ${T0} FROM ${t.runs} r WHERE r.id = '${runId}'`)
  return againstHeld(admin, write)
}

/** Runs `write` while `admin`'s open transaction holds its locks; commits it after 200 ms. */
export async function againstHeld(
  admin: AdminSession,
  write: () => Promise<OpResult[]>,
): Promise<OpResult[]> {
  const writing = write()
  await new Promise((resolve) => setTimeout(resolve, 200))
  await admin.query('COMMIT')
  return writing
}

async function suspendRacingDelivery(
  store: StateStore,
  admin: AdminSession,
  t: RaceTables,
): Promise<void> {
  await store.applyBatch([startRun('a')], T0)
  const results = await againstHeldDelivery(admin, t, 'theirs', () =>
    store.applyBatch([suspendForSignal('a', T0 + 60_000)], T0 + 5),
  )
  assert.deepEqual(results, [{ status: 'applied', availableAt: T0 + 5 }])
  const run = await store.getRun('a')
  assert.deepEqual([run?.status, run?.availableAt, run?.inboxSeq], ['waiting', T0 + 5, 1])
}

async function dedupeRacingDelivery(
  store: StateStore,
  admin: AdminSession,
  t: RaceTables,
): Promise<void> {
  await store.applyBatch([startRun('a')], T0)
  const results = await againstHeldDelivery(admin, t, 'same', () =>
    store.applyBatch([deliver('a', 'same'), deliver('a', 'other')], T0 + 5),
  )
  assert.deepEqual(results, [
    { status: 'delivered', seq: 1, duplicate: true },
    { status: 'delivered', seq: 2, duplicate: false },
  ])
  const inbox = await store.loadInbox('a')
  assert.deepEqual(
    inbox.map((m) => [m.seq, m.dedupeId, m.payload]),
    [
      [1, 'same', '"theirs"'],
      [2, 'other', '"ours"'],
    ],
  )
}

/** A suspend and a delivery of one run in one batch apply in batch order, either way round. */
export async function suspendAndDeliveryInOneBatch(store: StateStore): Promise<void> {
  await store.applyBatch([startRun('a'), startRun('b')], T0)
  const results = await store.applyBatch(
    [
      suspendForSignal('a', null),
      deliver('a', null),
      deliver('b', null),
      suspendForSignal('b', null),
    ],
    T0 + 5,
  )
  assert.deepEqual(results, [
    { status: 'applied', availableAt: null },
    { status: 'delivered', seq: 1, duplicate: false },
    { status: 'delivered', seq: 1, duplicate: false },
    { status: 'applied', availableAt: T0 + 5 },
  ])
  for (const id of ['a', 'b']) {
    const run = await store.getRun(id)
    assert.deepEqual([run?.status, run?.availableAt], ['waiting', T0 + 5], `run ${id}`)
  }
}

/** The scenarios against a concurrent delivery, by title. */
export const RACES: ReadonlyArray<
  [title: string, race: (store: StateStore, admin: AdminSession, t: RaceTables) => Promise<void>]
> = [
  [
    'a suspend waiting on an uncommitted delivery to its run sees it: claimable now',
    suspendRacingDelivery,
  ],
  [
    'a delivery racing an uncommitted one of the same dedupe id reports the duplicate',
    dedupeRacingDelivery,
  ],
]
