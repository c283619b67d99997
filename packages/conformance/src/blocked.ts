/**
 * Blocked runs (SuspendRunOp.blocked): a suspend that says no live worker can serve one of the
 * run's remote steps leaves it `blocked` instead of `waiting` — read so by getRun, listRuns'
 * status filter, facets and backlog — and in every other respect a waiting run: its timer and
 * its messages wake it, a claim takes it (and ends the mark), a cancel ends it. A later suspend
 * without the flag leaves it `waiting` again.
 */
import assert from 'node:assert/strict'
import type { Fence, RunStatus, StateStore, StoreOp } from '@cairn/core/contracts'
import { newRun, T0 } from './fixtures.ts'
import { same, type Define } from './harness.ts'
import {
  applyOne,
  claim,
  expectApplied,
  ids,
  listAll,
  mustGetRun,
  startRun,
  suspend,
} from './store_calls.ts'

const NEEDS_GPU = 'step "render" on db: no live worker offers gpu'

async function suspendBlocked(
  store: StateStore,
  fence: Fence,
  wakeAt: number | null,
  now: number,
): Promise<void> {
  const op: StoreOp = {
    type: 'suspendRun',
    fence,
    wakeAt,
    waitingOn: NEEDS_GPU,
    inboxSeen: 0,
    wakeOn: ['cairn:task:0'],
    blocked: true,
  }
  expectApplied(await applyOne(store, op, now), `blocked suspendRun ${fence.runId}`)
}

async function statusOf(store: StateStore, id: string): Promise<RunStatus> {
  return (await mustGetRun(store, id)).status
}

/** blocked-a (timer at T0 + 500), blocked-b (no timer), waiting-c, pending-d (tag `t`). */
async function seed(store: StateStore): Promise<void> {
  await suspendBlocked(store, await startRun(store, 'blocked-a', T0), T0 + 500, T0 + 1)
  await suspendBlocked(store, await startRun(store, 'blocked-b', T0 + 2), null, T0 + 3)
  await suspend(store, await startRun(store, 'waiting-c', T0 + 4), T0 + 600, T0 + 5)
  const created = await applyOne(
    store,
    {
      type: 'createRun',
      run: { ...newRun('pending-d', { createdAt: T0 + 6 }), tags: ['t'] },
    },
    T0 + 6,
  )
  expectApplied(created, 'createRun pending-d')
}

export function blockedTests(define: Define): void {
  define('a blocked suspend reads blocked, with what it needs and its wake time', async (store) => {
    await suspendBlocked(store, await startRun(store, 'run-1', T0), T0 + 500, T0 + 1)
    const run = await mustGetRun(store, 'run-1')
    same(
      { status: run.status, waitingOn: run.waitingOn, availableAt: run.availableAt },
      { status: 'blocked', waitingOn: NEEDS_GPU, availableAt: T0 + 500 },
      'the blocked run',
    )
    const absent = await applyOne(
      store,
      {
        type: 'suspendRun',
        fence: await startRun(store, 'run-2', T0),
        wakeAt: null,
        waitingOn: 'x',
        inboxSeen: 0,
        blocked: false,
      },
      T0 + 2,
    )
    expectApplied(absent, 'suspendRun with blocked: false')
    assert.equal(await statusOf(store, 'run-2'), 'waiting', 'blocked: false is a plain wait')
  })

  define(
    'listRuns tells blocked from waiting, alone, together and with other statuses',
    async (store) => {
      await seed(store)
      const listed = async (status: RunStatus | RunStatus[], tag?: string) =>
        ids(
          await listAll(store, { status, order: 'oldest', ...(tag === undefined ? {} : { tag }) }),
        ).join(',')
      same(await listed('blocked'), 'blocked-a,blocked-b', 'status blocked')
      same(await listed('waiting'), 'waiting-c', 'status waiting')
      same(await listed(['waiting', 'blocked']), 'blocked-a,blocked-b,waiting-c', 'both')
      same(
        await listed(['blocked', 'pending']),
        'blocked-a,blocked-b,pending-d',
        'blocked + pending',
      )
      same(await listed(['waiting', 'pending']), 'waiting-c,pending-d', 'waiting + pending')
      same(await listed(['blocked', 'pending'], 't'), 'pending-d', 'blocked + pending, tagged')
      same(await listed('blocked', 't'), '', 'blocked, tagged: none')
      const claimable = await listAll(store, { status: 'blocked', claimableBefore: T0 + 501 })
      same(ids(claimable), ['blocked-a'], 'a blocked run with a timer is claimable by then')
    },
  )

  define('facets and backlog count blocked runs apart from waiting ones', async (store) => {
    await seed(store)
    const facets = await store.facetRuns({})
    same(facets.byStatus, { blocked: 2, waiting: 1, pending: 1 }, 'facetRuns byStatus')
    same(
      (await store.facetRuns({ status: 'blocked' })).byStatus,
      { blocked: 2, waiting: 1, pending: 1 },
      'byStatus ignores the status filter',
    )
    same((await store.facetRuns({ tag: 't' })).byStatus, { pending: 1 }, 'byStatus of a tag')
    same(
      await store.backlog(T0 + 550),
      { pending: 1, waiting: 1, blocked: 2, queued: 0, dueTimers: 1, oldestPendingAt: T0 + 6 },
      'backlog: the blocked timer due at T0 + 500 is a due timer',
    )
  })

  define('a message its wait takes wakes a blocked run; a claim ends the mark', async (store) => {
    await suspendBlocked(store, await startRun(store, 'run-1', T0), null, T0 + 1)
    const other = {
      runId: 'run-1',
      kind: 'signal' as const,
      name: 'other',
      dedupeId: null,
      payload: '1',
    }
    await applyOne(store, { type: 'deliverMessage', message: other }, T0 + 2)
    same((await mustGetRun(store, 'run-1')).availableAt, null, 'a message it does not wait for')
    const result = { ...other, name: 'cairn:task:0' }
    await applyOne(store, { type: 'deliverMessage', message: result }, T0 + 3)
    const woken = await mustGetRun(store, 'run-1')
    same(
      { status: woken.status, availableAt: woken.availableAt },
      { status: 'blocked', availableAt: T0 + 3 },
      'woken, still blocked until claimed',
    )
    const claimed = await claim(store, { now: T0 + 4 })
    same(ids(claimed.claimed), ['run-1'], 'the woken blocked run is claimed')
    const run = await mustGetRun(store, 'run-1')
    same({ status: run.status, epoch: run.leaseEpoch }, { status: 'running', epoch: 2 }, 'claimed')
    await suspend(store, { runId: 'run-1', epoch: 2 }, null, T0 + 5)
    assert.equal(await statusOf(store, 'run-1'), 'waiting', 'the next suspend decides anew')
  })

  define('a blocked run is claimed at its timer, blocked again, then cancelled', async (store) => {
    await suspendBlocked(store, await startRun(store, 'run-1', T0), T0 + 100, T0 + 1)
    same(ids((await claim(store, { now: T0 + 99 })).claimed), [], 'not before its timer')
    same(ids((await claim(store, { now: T0 + 100 })).claimed), ['run-1'], 'at its timer')
    await suspendBlocked(store, { runId: 'run-1', epoch: 2 }, T0 + 200, T0 + 101)
    assert.equal(await statusOf(store, 'run-1'), 'blocked', 'blocked again at the new epoch')
    const cancelled = await applyOne(
      store,
      { type: 'cancelRun', runId: 'run-1', error: '"stop"' },
      T0 + 102,
    )
    expectApplied(cancelled, 'cancelRun of a blocked run')
    const run = await mustGetRun(store, 'run-1')
    same(
      { status: run.status, availableAt: run.availableAt },
      { status: 'cancelled', availableAt: null },
      'cancelled',
    )
    same(ids(await listAll(store, { status: 'blocked' })), [], 'no blocked run left')
  })
}
