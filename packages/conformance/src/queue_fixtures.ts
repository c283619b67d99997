/**
 * What the named-queue conformance tests (queues.ts, queue_rates.ts) share: requests, the
 * saves that enqueue and release, and who holds a slot as read back from what the store said —
 * an enqueue's result (`granted`, its own grant: no message) and the grant messages in the
 * inboxes.
 */
import assert from 'node:assert/strict'
import { queueSlotMessage } from '@cairn/core/store-kit'
import type {
  CheckpointRecord,
  Fence,
  OpResult,
  QueueRequest,
  QueueStats,
  StateStore,
  StoreOp,
} from '@cairn/core/contracts'
import { T0, checkpoint } from './fixtures.ts'
import { applyOne, expectApplied, startRun } from './store_calls.ts'

export const Q = 'carrier'
export const SEQ = 2

export function request(overrides: Partial<QueueRequest> = {}): QueueRequest {
  return {
    queue: Q,
    concurrency: 1,
    attempt: 1,
    priority: 0,
    fairnessKey: '',
    rateLimit: null,
    ...overrides,
  }
}

export function waiting(runId: string, seq = SEQ, attempts = 0): CheckpointRecord {
  return checkpoint(runId, seq, { kind: 'step', status: 'waiting', attempts, output: null })
}

export function enqueueOp(fence: Fence, r: QueueRequest = request(), seq = SEQ): StoreOp {
  return { type: 'saveCheckpoint', fence, checkpoint: waiting(fence.runId, seq), enqueue: r }
}

/** Runs each store granted through an enqueue's result (their grant has no message). */
const grantedByResult = new WeakMap<StateStore, Set<string>>()

export function ownGrants(store: StateStore): Set<string> {
  let runs = grantedByResult.get(store)
  if (runs === undefined) grantedByResult.set(store, (runs = new Set()))
  return runs
}

export async function enqueue(
  store: StateStore,
  fence: Fence,
  r: QueueRequest = request(),
  now = T0,
): Promise<OpResult> {
  const result = await applyOne(store, enqueueOp(fence, r), now)
  expectApplied(result, `enqueue ${fence.runId} on ${r.queue}`)
  noteOwnGrant(store, fence.runId, result)
  return result
}

export function noteOwnGrant(store: StateStore, runId: string, result: OpResult | undefined): void {
  const granted = result?.status === 'applied' ? result.granted : undefined
  assert.ok(granted === undefined || granted === true, `granted is true or absent, got ${granted}`)
  if (granted === true) ownGrants(store).add(runId)
}

/** Records the attempt's outcome (`completed` unless told) and releases the queue's slot. */
export async function release(
  store: StateStore,
  fence: Fence,
  now: number,
  changes: Partial<CheckpointRecord> = {},
  queue = Q,
): Promise<void> {
  const cp = checkpoint(fence.runId, SEQ, { kind: 'step', ...changes })
  const op: StoreOp = { type: 'saveCheckpoint', fence, checkpoint: cp, release: queue }
  expectApplied(await applyOne(store, op, now), `release ${fence.runId}`)
  ownGrants(store).delete(fence.runId)
}

/**
 * Runs holding a grant for position SEQ: granted by their enqueue's result, or by a message
 * in their inbox (consumed by the release).
 */
export async function grantedAmong(
  store: StateStore,
  runIds: readonly string[],
): Promise<string[]> {
  const held: string[] = []
  for (const id of runIds) {
    const inbox = await store.loadInbox(id)
    if (ownGrants(store).has(id) || inbox.some((m) => m.name === queueSlotMessage(SEQ)))
      held.push(id)
  }
  return held
}

/** The queue's stats at `now` (late enough by default that no grant counts as recent). */
export async function stats(store: StateStore, queue = Q, now = T0 + 10_000_000) {
  const [found] = await store.queueStats([queue], now)
  assert.ok(found !== undefined, `queueStats must list queue ${queue}`)
  return found
}

/** QueueStats of a queue without a rate: the rate's fields at their none values, no lease. */
export function unrated(
  fields: Omit<QueueStats, 'rateLimit' | 'recentGrants' | 'throttled' | 'leased'> & {
    leased?: number
  },
): QueueStats {
  return { leased: 0, ...fields, rateLimit: null, recentGrants: 0, throttled: 0 }
}

/** Starts runs r0…r(n-1) (leased) and enqueues them in order; returns their fences. */
export async function line(
  store: StateStore,
  ids: readonly string[],
  r: (id: string) => QueueRequest = () => request(),
): Promise<Fence[]> {
  const fences: Fence[] = []
  for (const [i, id] of ids.entries()) {
    const fence = await startRun(store, id)
    await enqueue(store, fence, r(id), T0 + i)
    fences.push(fence)
  }
  return fences
}
