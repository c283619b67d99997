/**
 * Store calls as the tests make them: each checks the shape of what comes back (result
 * count, field types, integer times) before the test looks at values.
 */
import assert from 'node:assert/strict'
import type {
  CheckpointRecord,
  ClaimRequest,
  ClaimResult,
  Fence,
  OpResult,
  ParkReason,
  RunPage,
  RunRecord,
  StateStore,
  StoreOp,
  ListRunsQuery,
} from '@cairn/core/contracts'
import { LEASE_MS, ORDERS_V1, OWNER_A, T0, newRun } from './fixtures.ts'
import { same } from './harness.ts'
import { checkCheckpointShape, checkRunShape } from './shapes.ts'

export async function apply(store: StateStore, ops: StoreOp[], now: number): Promise<OpResult[]> {
  const results = await store.applyBatch(ops, now)
  assert.ok(Array.isArray(results), 'applyBatch must resolve to an array')
  assert.equal(results.length, ops.length, 'applyBatch must return one result per op')
  for (const result of results)
    if (result.status === 'exists') checkRunShape(result.run, 'exists.run')
  return results
}

export async function applyOne(store: StateStore, op: StoreOp, now: number): Promise<OpResult> {
  const [result] = await apply(store, [op], now)
  return result as OpResult
}

/** Asserts an `applied` result (any epoch field: only createRun's is specified). */
export function expectApplied(result: OpResult | undefined, what: string): void {
  if (result?.status !== 'applied') {
    assert.fail(`${what}: expected status applied, got ${JSON.stringify(result)}`)
  }
}

export function expectFenced(
  result: OpResult | undefined,
  current: { status: RunRecord['status']; epoch: number } | null,
  what: string,
): void {
  same(result, { status: 'fenced', current }, `${what}: expected fenced`)
}

/** Creates a pending run at `now`; returns its stored record. */
export async function createPending(
  store: StateStore,
  id: string,
  now: number,
  key = ORDERS_V1,
): Promise<RunRecord> {
  const result = await applyOne(
    store,
    { type: 'createRun', run: newRun(id, { key, createdAt: now }) },
    now,
  )
  same(result, { status: 'applied', epoch: 0 }, `createRun ${id}`)
  return mustGetRun(store, id)
}

/** Creates a run already leased to `owner` (epoch 1); returns its fence. */
export async function startRun(
  store: StateStore,
  id: string,
  now = T0,
  options: { key?: typeof ORDERS_V1; owner?: string; leaseMs?: number } = {},
): Promise<Fence> {
  const claim = { owner: options.owner ?? OWNER_A, leaseMs: options.leaseMs ?? LEASE_MS }
  const op: StoreOp = {
    type: 'createRun',
    run: newRun(id, { key: options.key, createdAt: now }),
    claim,
  }
  same(await applyOne(store, op, now), { status: 'applied', epoch: 1 }, `createRun ${id} claimed`)
  return { runId: id, epoch: 1 }
}

export async function finish(store: StateStore, fence: Fence, now: number): Promise<void> {
  const op: StoreOp = { type: 'finishRun', fence, status: 'completed', output: '"ok"', error: null }
  expectApplied(await applyOne(store, op, now), `finishRun ${fence.runId}`)
}

export async function suspend(
  store: StateStore,
  fence: Fence,
  wakeAt: number | null,
  now: number,
): Promise<void> {
  const op: StoreOp = { type: 'suspendRun', fence, wakeAt, waitingOn: 'sleep', inboxSeen: 0 }
  expectApplied(await applyOne(store, op, now), `suspendRun ${fence.runId}`)
}

export async function park(store: StateStore, fence: Fence, reason: ParkReason, now: number) {
  expectApplied(
    await applyOne(store, { type: 'parkRun', fence, reason }, now),
    `parkRun ${fence.runId}`,
  )
}

export async function save(store: StateStore, fence: Fence, cp: CheckpointRecord, now: number) {
  const op: StoreOp = { type: 'saveCheckpoint', fence, checkpoint: cp }
  expectApplied(await applyOne(store, op, now), `saveCheckpoint ${cp.runId}#${cp.seq}`)
}

export async function mustGetRun(store: StateStore, id: string): Promise<RunRecord> {
  const run = await store.getRun(id)
  if (run === null) assert.fail(`getRun(${JSON.stringify(id)}) returned null for a run that exists`)
  checkRunShape(run, `getRun(${id})`)
  return run
}

export async function checkpoints(store: StateStore, id: string): Promise<CheckpointRecord[]> {
  const rows = await store.loadCheckpoints(id)
  assert.ok(Array.isArray(rows), 'loadCheckpoints must resolve to an array')
  rows.forEach((row, i) => checkCheckpointShape(row, `loadCheckpoints(${id})[${i}]`))
  return rows
}

export async function claim(
  store: StateStore,
  request: Partial<ClaimRequest> & { now: number },
): Promise<ClaimResult> {
  const result = await store.claimRuns({
    owner: OWNER_A,
    leaseMs: LEASE_MS,
    limit: 100,
    runnable: [ORDERS_V1],
    ...request,
  })
  result.claimed.forEach((run, i) => checkRunShape(run, `claimRuns().claimed[${i}]`))
  const next = result.nextAvailableAt
  assert.ok(
    next === null || Number.isSafeInteger(next),
    `nextAvailableAt must be an integer or null, got ${next}`,
  )
  return result
}

export function ids(runs: readonly RunRecord[]): string[] {
  return runs.map((run) => run.id)
}

export async function list(store: StateStore, query: ListRunsQuery): Promise<RunPage> {
  const page = await store.listRuns(query)
  page.runs.forEach((run, i) => checkRunShape(run, `listRuns().runs[${i}]`))
  const cursor = page.nextCursor
  assert.ok(cursor === null || typeof cursor === 'string', `nextCursor must be a string or null`)
  return page
}

/** Every page of `query` from the first, following cursors (at most 100 pages). */
export async function listAll(store: StateStore, query: ListRunsQuery): Promise<RunRecord[]> {
  const runs: RunRecord[] = []
  let cursor: string | undefined
  for (let pages = 0; pages < 100; pages++) {
    const page = await list(store, cursor === undefined ? query : { ...query, cursor })
    runs.push(...page.runs)
    if (page.nextCursor === null) return runs
    cursor = page.nextCursor
  }
  assert.fail('listRuns keeps returning cursors: pagination does not end')
}

/** The run and its checkpoints, to show that an op changed nothing. */
export async function snapshot(store: StateStore, id: string) {
  return { run: await store.getRun(id), checkpoints: await store.loadCheckpoints(id) }
}
