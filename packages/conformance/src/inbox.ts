/**
 * The run inbox (signals): deliverMessage numbers messages in acceptance order, deduplicates
 * by id, wakes a waiting run, refuses terminal and unknown runs; a suspend that has not seen
 * the latest message leaves the run claimable at once; a checkpoint consumes a message
 * atomically, once.
 */
import assert from 'node:assert/strict'
import type {
  CheckpointRecord,
  DeliverMessageOp,
  Fence,
  InboxMessage,
  SaveCheckpointOp,
  StateStore,
} from '@cairn/core/contracts'
import { LEASE_MS, NOT_REGISTERED, T0, checkpoint } from './fixtures.ts'
import { same, type Define } from './harness.ts'
import {
  applyOne,
  claim,
  createPending,
  expectApplied,
  finish,
  mustGetRun,
  park,
  startRun,
  suspend,
} from './store_calls.ts'

function message(
  runId: string,
  name = 'approval',
  options: { dedupeId?: string | null; payload?: string } = {},
): DeliverMessageOp {
  return {
    type: 'deliverMessage',
    message: {
      runId,
      kind: 'signal',
      name,
      dedupeId: options.dedupeId ?? null,
      payload: options.payload ?? JSON.stringify({ approved: true }),
    },
  }
}

async function inbox(store: StateStore, runId: string): Promise<InboxMessage[]> {
  const rows = await store.loadInbox(runId)
  assert.ok(Array.isArray(rows), 'loadInbox must resolve to an array')
  for (const [i, row] of rows.entries()) {
    assert.ok(Number.isSafeInteger(row.seq), `loadInbox()[${i}].seq must be an integer`)
    assert.ok(
      Number.isSafeInteger(row.acceptedAt),
      `loadInbox()[${i}].acceptedAt must be an integer`,
    )
  }
  return rows
}

/** A signal wait at `seq` that received message `seq` of the inbox. */
function received(runId: string, seq: number, payload: string): CheckpointRecord {
  return checkpoint(runId, seq, { name: 'approval', kind: 'signal', output: payload })
}

/** A signal wait at position `seq` recording `payload` and consuming inbox message `consumes`. */
function consuming(fence: Fence, seq: number, payload: string, consumes: number): SaveCheckpointOp {
  return {
    type: 'saveCheckpoint',
    fence,
    checkpoint: received(fence.runId, seq, payload),
    consumes,
  }
}

async function suspendSeen(
  store: StateStore,
  fence: Fence,
  inboxSeen: number,
  now: number,
  expectedAvailableAt: number,
) {
  const op = {
    type: 'suspendRun' as const,
    fence,
    wakeAt: T0 + 60_000,
    waitingOn: 'signal',
    inboxSeen,
  }
  const result = await applyOne(store, op, now)
  expectApplied(result, 'suspendRun')
  assert.equal(
    result.status === 'applied' ? result.availableAt : undefined,
    expectedAvailableAt,
    'suspendRun reports the availableAt it stored',
  )
}

export function inboxTests(define: Define): void {
  define(
    'deliverMessage stores the message under the next seq, in acceptance order',
    async (store) => {
      await createPending(store, 'run-1', T0)
      same(
        await applyOne(store, message('run-1'), T0 + 1),
        { status: 'delivered', seq: 1, duplicate: false },
        'first message',
      )
      const second = message('run-1', 'shipped', {
        dedupeId: 'sig-2',
        payload: '"\u{1F4E6} 9007199254740993"',
      })
      same(
        await applyOne(store, second, T0 + 2),
        { status: 'delivered', seq: 2, duplicate: false },
        'second message',
      )
      same(
        await inbox(store, 'run-1'),
        [
          {
            runId: 'run-1',
            seq: 1,
            kind: 'signal',
            name: 'approval',
            dedupeId: null,
            payload: '{"approved":true}',
            acceptedAt: T0 + 1,
          },
          {
            runId: 'run-1',
            seq: 2,
            kind: 'signal',
            name: 'shipped',
            dedupeId: 'sig-2',
            payload: '"\u{1F4E6} 9007199254740993"',
            acceptedAt: T0 + 2,
          },
        ],
        'loadInbox',
      )
      const run = await mustGetRun(store, 'run-1')
      assert.equal(run.inboxSeq, 2, 'inboxSeq counts accepted messages')
      assert.equal(run.updatedAt, T0 + 2, 'accepting a message stamps updatedAt')
      assert.equal(run.availableAt, T0, 'a pending run keeps its availableAt')
    },
  )

  define(
    'a resend with the same dedupeId is accepted once; null ids never deduplicate',
    async (store) => {
      await createPending(store, 'run-1', T0)
      await applyOne(store, message('run-1', 'approval', { dedupeId: 'once' }), T0 + 1)
      same(
        await applyOne(
          store,
          message('run-1', 'approval', { dedupeId: 'once', payload: '"other"' }),
          T0 + 2,
        ),
        { status: 'delivered', seq: 1, duplicate: true },
        'the resend',
      )
      await applyOne(store, message('run-1'), T0 + 3)
      await applyOne(store, message('run-1'), T0 + 4)
      const rows = await inbox(store, 'run-1')
      assert.deepEqual(
        rows.map((m) => m.seq),
        [1, 2, 3],
      )
      assert.equal(rows[0]?.payload, '{"approved":true}', 'the first payload is kept')
      assert.equal((await mustGetRun(store, 'run-1')).inboxSeq, 3)
    },
  )

  define('dedupe ids are per run, and remembered after the message is consumed', async (store) => {
    const fence = await startRun(store, 'run-1', T0)
    await createPending(store, 'run-2', T0)
    await applyOne(store, message('run-1', 'approval', { dedupeId: 'same-id' }), T0 + 1)
    same(
      await applyOne(store, message('run-2', 'approval', { dedupeId: 'same-id' }), T0 + 1),
      { status: 'delivered', seq: 1, duplicate: false },
      'same id, other run',
    )
    const op = consuming(fence, 0, '{"approved":true}', 1)
    expectApplied(await applyOne(store, op, T0 + 2), 'saveCheckpoint consuming message 1')
    same(
      await applyOne(store, message('run-1', 'approval', { dedupeId: 'same-id' }), T0 + 3),
      { status: 'delivered', seq: 1, duplicate: true },
      'resend after consumption',
    )
    same(await inbox(store, 'run-1'), [], 'the inbox after consumption')
  })

  define('a message to a terminal or unknown run is refused and stored nowhere', async (store) => {
    const fence = await startRun(store, 'run-1', T0)
    await finish(store, fence, T0 + 1)
    const result = await applyOne(store, message('run-1'), T0 + 2)
    same(
      result,
      { status: 'terminal', current: { status: 'completed', epoch: 1 } },
      'to a completed run',
    )
    same(
      await applyOne(store, message('ghost'), T0 + 2),
      { status: 'not_found' },
      'to an unknown run',
    )
    same(await inbox(store, 'run-1'), [], 'inbox of the completed run')
    same(await inbox(store, 'ghost'), [], 'inbox of an unknown run')
    assert.equal((await mustGetRun(store, 'run-1')).inboxSeq, 0)
  })

  define('a message wakes a waiting run now; an earlier due time is kept', async (store) => {
    const a = await startRun(store, 'run-a', T0)
    await suspend(store, a, T0 + 60_000, T0 + 1)
    await applyOne(store, message('run-a'), T0 + 10)
    assert.equal((await mustGetRun(store, 'run-a')).availableAt, T0 + 10, 'timer run woken now')
    const b = await startRun(store, 'run-b', T0)
    await suspend(store, b, null, T0 + 1)
    await applyOne(store, message('run-b'), T0 + 10)
    const woken = await mustGetRun(store, 'run-b')
    assert.equal(woken.availableAt, T0 + 10, 'a run with no timer is woken now')
    assert.equal(woken.status, 'waiting', 'waking does not change the status')
    const c = await startRun(store, 'run-c', T0)
    await suspend(store, c, T0 + 5, T0 + 1)
    await applyOne(store, message('run-c'), T0 + 10)
    assert.equal(
      (await mustGetRun(store, 'run-c')).availableAt,
      T0 + 5,
      'an overdue run keeps its due time',
    )
    const claimed = await claim(store, { now: T0 + 10 })
    assert.deepEqual(claimed.claimed.map((r) => r.id).sort(), ['run-a', 'run-b', 'run-c'])
    assert.ok(
      claimed.claimed.every((r) => r.inboxSeq === 1),
      'claimRuns returns inboxSeq',
    )
  })

  define(
    'a running run keeps its lease; a suspend that missed a message leaves it claimable now',
    async (store) => {
      const fence = await startRun(store, 'run-1', T0)
      await applyOne(store, message('run-1'), T0 + 5)
      const running = await mustGetRun(store, 'run-1')
      assert.equal(running.status, 'running')
      assert.equal(running.availableAt, T0 + LEASE_MS, 'the lease expiry is untouched')
      await suspendSeen(store, fence, 0, T0 + 7, T0 + 7)
      const suspended = await mustGetRun(store, 'run-1')
      assert.equal(suspended.status, 'waiting')
      assert.equal(suspended.availableAt, T0 + 7, 'claimable at once: the turn never saw message 1')
    },
  )

  define(
    'a suspend that has seen every message waits for its timer (or for the next message)',
    async (store) => {
      const fence = await startRun(store, 'run-1', T0)
      await applyOne(store, message('run-1'), T0 + 5)
      await suspendSeen(store, fence, 1, T0 + 7, T0 + 60_000)
      assert.equal((await mustGetRun(store, 'run-1')).availableAt, T0 + 60_000)
      const none = await startRun(store, 'run-2', T0)
      const op = {
        type: 'suspendRun' as const,
        fence: none,
        wakeAt: null,
        waitingOn: 'signal',
        inboxSeen: 0,
      }
      expectApplied(await applyOne(store, op, T0 + 7), 'suspendRun without a timer')
      assert.equal(
        (await mustGetRun(store, 'run-2')).availableAt,
        null,
        'nothing wakes it but a message',
      )
    },
  )

  define('a checkpoint consumes its message only when it applies', async (store) => {
    const fence = await startRun(store, 'run-1', T0)
    await applyOne(store, message('run-1'), T0 + 1)
    await applyOne(store, message('run-1', 'approval', { payload: '"second"' }), T0 + 1)
    const stale = consuming({ runId: 'run-1', epoch: 7 }, 0, '"x"', 1)
    const fenced = await applyOne(store, stale, T0 + 2)
    assert.equal(fenced.status, 'fenced', 'a stale holder is fenced')
    assert.deepEqual(
      (await inbox(store, 'run-1')).map((m) => m.seq),
      [1, 2],
      'nothing consumed by a fenced write',
    )
    const first = consuming(fence, 0, '{"approved":true}', 1)
    expectApplied(await applyOne(store, first, T0 + 3), 'consuming message 1')
    assert.deepEqual(
      (await inbox(store, 'run-1')).map((m) => m.seq),
      [2],
    )
    const again = { ...first, consumes: 2 }
    const conflict = await applyOne(store, again, T0 + 4)
    assert.equal(conflict.status, 'conflict', 'the position is already recorded')
    assert.deepEqual(
      (await inbox(store, 'run-1')).map((m) => m.seq),
      [2],
      'a conflicting write consumes nothing',
    )
    assert.equal(
      (await mustGetRun(store, 'run-1')).inboxSeq,
      2,
      'consumption leaves inboxSeq alone',
    )
  })

  define(
    'loadInbox after a seq: only later unconsumed messages; a bad seq is refused',
    async (store) => {
      const fence = await startRun(store, 'run-1', T0)
      for (let i = 0; i < 5; i++) await applyOne(store, message('run-1', `m${i + 1}`), T0 + 1)
      expectApplied(await applyOne(store, consuming(fence, 0, '"x"', 4), T0 + 2), 'consume 4')
      const after = async (seq?: number) => (await store.loadInbox('run-1', seq)).map((m) => m.seq)
      same(await after(), [1, 2, 3, 5], 'no afterSeq: every unconsumed message')
      same(await after(0), [1, 2, 3, 5], 'after 0: the same')
      same(await after(2), [3, 5], 'after 2: later ones, the consumed 4 left out')
      same(await after(5), [], 'after the last: none')
      same(await after(1_000), [], 'after a seq never reached: none')
      same(await store.loadInbox('nobody', 2), [], 'an unknown run: none')
      for (const bad of [-1, 1.5, Number.NaN, Infinity, '2', null]) {
        await assert.rejects(
          () => store.loadInbox('run-1', bad as number),
          { code: 'E_INVALID_ARGUMENT' },
          `afterSeq ${String(bad)}`,
        )
      }
    },
  )

  define('consume and suspend in one batch; a parked run keeps its messages', async (store) => {
    const fence = await startRun(store, 'run-1', T0)
    await applyOne(store, message('run-1'), T0 + 1)
    await applyOne(store, message('run-1'), T0 + 1)
    const results = await store.applyBatch(
      [
        consuming(fence, 0, '{"approved":true}', 1),
        { type: 'suspendRun', fence, wakeAt: null, waitingOn: 'signal', inboxSeen: 2 },
      ],
      T0 + 2,
    )
    results.forEach((r, i) => expectApplied(r, `op ${i}`))
    assert.deepEqual(
      (await inbox(store, 'run-1')).map((m) => m.seq),
      [2],
    )
    const p = await startRun(store, 'run-p', T0)
    await park(store, p, NOT_REGISTERED, T0 + 1)
    same(
      await applyOne(store, message('run-p'), T0 + 2),
      { status: 'delivered', seq: 1, duplicate: false },
      'to a parked run',
    )
    const parked = await mustGetRun(store, 'run-p')
    assert.equal(parked.status, 'parked')
    assert.equal(parked.availableAt, null, 'a parked run is not woken by a message')
  })

  define(
    'a resend of an accepted message gets its receipt even once the run has finished',
    async (store) => {
      const fence = await startRun(store, 'run-1', T0)
      await applyOne(store, message('run-1', 'approval', { dedupeId: 'sent-once' }), T0 + 1)
      await finish(store, fence, T0 + 2)
      same(
        await applyOne(store, message('run-1', 'approval', { dedupeId: 'sent-once' }), T0 + 3),
        { status: 'delivered', seq: 1, duplicate: true },
        'the resend after the run finished',
      )
      same(
        await applyOne(store, message('run-1', 'approval', { dedupeId: 'never-sent' }), T0 + 3),
        { status: 'terminal', current: { status: 'completed', epoch: 1 } },
        'a new message to the finished run',
      )
    },
  )

  define('finishRun and cancelRun deliver their notify iff they apply', async (store) => {
    const parent = await startRun(store, 'parent', T0)
    await suspend(store, parent, null, T0 + 1)
    const child = await startRun(store, 'child', T0)
    const note = (dedupeId: string) => ({
      runId: 'parent',
      kind: 'signal' as const,
      name: 'cairn:child:0',
      dedupeId,
      payload: '{"status":"completed"}',
    })
    const stale = {
      type: 'finishRun' as const,
      fence: { runId: 'child', epoch: 9 },
      status: 'completed' as const,
      output: '1',
      error: null,
      notify: note('late'),
    }
    assert.equal((await applyOne(store, stale, T0 + 2)).status, 'fenced')
    same(await inbox(store, 'parent'), [], 'a fenced finish notifies nobody')
    const done = { ...stale, fence: child, notify: note('child-done') }
    expectApplied(await applyOne(store, done, T0 + 3), 'finishRun with notify')
    const got = await inbox(store, 'parent')
    assert.deepEqual(
      got.map((m) => [m.seq, m.name, m.dedupeId, m.payload]),
      [[1, 'cairn:child:0', 'child-done', '{"status":"completed"}']],
    )
    const woken = await mustGetRun(store, 'parent')
    assert.equal(woken.availableAt, T0 + 3, 'the waiting parent is woken')
    await createPending(store, 'other', T0)
    const cancel = {
      type: 'cancelRun' as const,
      runId: 'other',
      error: '"cancelled"',
      notify: note('other-cancelled'),
    }
    expectApplied(await applyOne(store, cancel, T0 + 4), 'cancelRun with notify')
    const again = await applyOne(store, { ...cancel, notify: note('cancelled-twice') }, T0 + 5)
    assert.equal(again.status, 'terminal', 'a second cancel does not apply')
    assert.deepEqual(
      (await inbox(store, 'parent')).map((m) => m.dedupeId),
      ['child-done', 'other-cancelled'],
    )
  })

  define(
    'a notify to an unknown or finished run is skipped; its op still applies',
    async (store) => {
      const gone = await startRun(store, 'gone-parent', T0)
      await finish(store, gone, T0 + 1)
      const child = await startRun(store, 'child', T0)
      const finishChild = {
        type: 'finishRun' as const,
        fence: child,
        status: 'completed' as const,
        output: '1',
        error: null,
        notify: {
          runId: 'gone-parent',
          kind: 'signal' as const,
          name: 'cairn:child:0',
          dedupeId: 'x',
          payload: '{}',
        },
      }
      expectApplied(
        await applyOne(store, finishChild, T0 + 2),
        'finish notifying a finished parent',
      )
      assert.equal((await mustGetRun(store, 'child')).status, 'completed')
      const orphan = await startRun(store, 'orphan', T0)
      const finishOrphan = {
        ...finishChild,
        fence: orphan,
        notify: { ...finishChild.notify, runId: 'no-such-run' },
      }
      expectApplied(await applyOne(store, finishOrphan, T0 + 3), 'finish notifying an unknown run')
      same(await inbox(store, 'gone-parent'), [], 'nothing stored for the finished parent')
    },
  )
}
