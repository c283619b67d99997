/**
 * Named queues (SaveCheckpointOp.enqueue / release, FinishRunOp.releaseQueues, cancelRun,
 * grantQueueSlots, queueStats): a position's `waiting` checkpoint asks a queue for a slot; a
 * queue grants at most `concurrency` slots at once — highest priority first, then the fairness
 * key granted least recently, then enqueue order — each grant a message in the run's inbox; the
 * save recording the attempt's outcome gives the slot back and grants the next waiter in the
 * same transaction. Who holds a slot is read back from what the store said: an enqueue's
 * result (`granted`, its own grant: no message) and the grant messages in the inboxes.
 */
import assert from 'node:assert/strict'
import { queueGrantId, queueSlotMessage } from '@cairn/core/store-kit'
import type { Fence, QueueRequest, StoreOp } from '@cairn/core/contracts'
import { ORDERS_V1, T0, checkpoint } from './fixtures.ts'
import { expectRejection, same, type Define } from './harness.ts'
import {
  Q,
  SEQ,
  enqueue,
  enqueueOp,
  grantedAmong,
  line,
  noteOwnGrant,
  ownGrants,
  release,
  request,
  stats,
  unrated,
  waiting,
} from './queue_fixtures.ts'
import { apply, applyOne, claim, expectApplied, mustGetRun, park, startRun } from './store_calls.ts'

export function queueTests(define: Define): void {
  define('an enqueue on a free queue is granted at once, by its result', async (store) => {
    const fence = await startRun(store, 'r1')
    const result = await applyOne(store, enqueueOp(fence, request({ concurrency: 2 })), T0)
    same(result, { status: 'applied', granted: true }, 'the save answers the grant')
    same(await store.loadInbox('r1'), [], 'its own grant needs no message')
    same(
      await stats(store),
      unrated({ queue: Q, concurrency: 2, granted: 1, waiting: 0, oldestWaitingSince: null }),
      'queueStats',
    )
    // A replayed save of the same attempt still holds the slot, and says so.
    const replay = await applyOne(store, enqueueOp(fence, request({ concurrency: 2 })), T0 + 1)
    same(replay, { status: 'applied', granted: true }, 'the replay holds it still')
    assert.equal((await stats(store)).granted, 1, 'the replay took no second slot')
  })

  define('a grant to another run is a message; the releasing op lists it', async (store) => {
    const [a] = await line(store, ['a', 'b'])
    const cp = checkpoint('a', SEQ, { kind: 'step' })
    const op: StoreOp = { type: 'saveCheckpoint', fence: a as Fence, checkpoint: cp, release: Q }
    const result = await applyOne(store, op, T0 + 10)
    const inbox = await store.loadInbox('b')
    same(
      inbox.map((m) => ({ name: m.name, dedupeId: m.dedupeId, kind: m.kind })),
      [{ name: queueSlotMessage(SEQ), dedupeId: queueGrantId(SEQ, 1), kind: 'signal' }],
      "b's grant message",
    )
    const grants = [{ runId: 'b', seq: SEQ, attempt: 1, inboxSeq: inbox[0]?.seq }]
    // b is running (not suspended): the grant wakes nobody, so no `promoted`.
    same(result, { status: 'applied', grants }, 'the release reports the grant it made')
  })

  define(
    'a queue grants at most its concurrency; a release grants the next waiter',
    async (store) => {
      const fences = await line(store, ['a', 'b', 'c'], () => request({ concurrency: 2 }))
      same(await grantedAmong(store, ['a', 'b', 'c']), ['a', 'b'], 'two slots, two grants')
      same(
        await stats(store),
        unrated({ queue: Q, concurrency: 2, granted: 2, waiting: 1, oldestWaitingSince: T0 + 2 }),
        'one waiting',
      )
      // c suspends waiting for its grant: only that message wakes it.
      const c = fences[2] as Fence
      const suspend: StoreOp = {
        type: 'suspendRun',
        fence: c,
        wakeAt: null,
        waitingOn: 'queue',
        inboxSeen: 0,
        wakeOn: [queueSlotMessage(SEQ)],
      }
      expectApplied(await applyOne(store, suspend, T0 + 5), 'suspend c')
      assert.equal((await mustGetRun(store, 'c')).availableAt, null, 'c sleeps until granted')
      const cp = checkpoint('a', SEQ, { kind: 'step' })
      const op: StoreOp = {
        type: 'saveCheckpoint',
        fence: fences[0] as Fence,
        checkpoint: cp,
        release: Q,
      }
      const released = await applyOne(store, op, T0 + 10)
      ownGrants(store).delete('a')
      same(await grantedAmong(store, ['a', 'b', 'c']), ['b', 'c'], 'the release granted c')
      assert.equal((await mustGetRun(store, 'c')).availableAt, T0 + 10, 'the grant woke c')
      const seq = (await store.loadInbox('c'))[0]?.seq
      same(
        released,
        {
          status: 'applied',
          promoted: true,
          grants: [{ runId: 'c', seq: SEQ, attempt: 1, inboxSeq: seq }],
        },
        'the release says it made a run claimable',
      )
      same(await store.loadInbox('a'), [], "a's grant was consumed with its outcome")
      assert.equal((await stats(store)).granted, 2)
    },
  )

  define('waiters are granted by priority, then in enqueue order', async (store) => {
    const priorities: Record<string, number> = { holder: 0, low: -5, mid1: 3, high: 9, mid2: 3 }
    const ids = Object.keys(priorities)
    const fences = await line(store, ids, (id) => request({ priority: priorities[id] as number }))
    const order: string[] = []
    let holder = fences[0] as Fence
    for (let k = 0; k < 4; k++) {
      await release(store, holder, T0 + 100 + k)
      const now = await grantedAmong(store, ids)
      assert.equal(now.length, 1, `one slot: one holder after release ${k}`)
      order.push(now[0] as string)
      holder = fences[ids.indexOf(now[0] as string)] as Fence
    }
    same(order, ['high', 'mid1', 'mid2', 'low'], 'grant order')
  })

  define('fairness: a key with one waiter is not starved by a key with many', async (store) => {
    const ids = ['a1', 'a2', 'a3', 'a4', 'a5', 'b1']
    const fences = await line(store, ids, (id) => request({ fairnessKey: id.slice(0, 1) }))
    const order = ['a1']
    let holder = fences[0] as Fence
    for (let k = 0; k < 5; k++) {
      await release(store, holder, T0 + 100 + k)
      const [next] = await grantedAmong(store, ids)
      order.push(next as string)
      holder = fences[ids.indexOf(next as string)] as Fence
    }
    same(order, ['a1', 'b1', 'a2', 'a3', 'a4', 'a5'], 'b1 goes second, though enqueued last')
  })

  define('a replayed enqueue keeps its place; a new attempt goes to the back', async (store) => {
    const [a, b, c] = await line(store, ['a', 'b', 'c'])
    // b saves its waiting checkpoint again (a replay): still before c.
    await enqueue(store, b as Fence, request(), T0 + 50)
    // c retried: its attempt 2 is a new item (behind nobody here, but after b).
    await enqueue(store, c as Fence, request({ attempt: 2 }), T0 + 51)
    await release(store, a as Fence, T0 + 60)
    same(await grantedAmong(store, ['a', 'b', 'c']), ['b'], 'b kept its place')
    await release(store, b as Fence, T0 + 61)
    const inbox = await store.loadInbox('c')
    same(
      inbox.map((m) => m.dedupeId),
      [queueGrantId(SEQ, 2)],
      'the grant names the attempt it is for',
    )
  })

  define('a retrying outcome gives the slot back; the retry waits in line again', async (store) => {
    const [a, b] = await line(store, ['a', 'b'])
    await release(store, a as Fence, T0 + 10, {
      status: 'retrying',
      output: null,
      error: '{"message":"boom"}',
      wakeAt: T0 + 1000,
    })
    same(await grantedAmong(store, ['a', 'b']), ['b'], 'b holds the slot during a back-off')
    await enqueue(store, a as Fence, request({ attempt: 2 }), T0 + 1000)
    same(await grantedAmong(store, ['a', 'b']), ['b'], 'a waits for its second attempt')
    await release(store, b as Fence, T0 + 1001)
    same(await grantedAmong(store, ['a', 'b']), ['a'], 'then a is granted again')
  })

  define(
    'a finished run frees its slots: at once when named, else at the next pass',
    async (store) => {
      const [a, b, c] = await line(store, ['a', 'b', 'c'])
      const finish = (fence: Fence, releaseQueues?: string[]): StoreOp => ({
        type: 'finishRun',
        fence,
        status: 'completed',
        output: 'null',
        error: null,
        ...(releaseQueues === undefined ? {} : { releaseQueues }),
      })
      const ended = await applyOne(store, finish(a as Fence, [Q]), T0 + 10)
      expectApplied(ended, 'finish a naming Q')
      same(await grantedAmong(store, ['b', 'c']), ['b'], 'the finish granted b in its write')
      const seq = (await store.loadInbox('b'))[0]?.seq
      const { promoted, grants } = ended as { promoted?: boolean; grants?: unknown }
      same(grants, [{ runId: 'b', seq: SEQ, attempt: 1, inboxSeq: seq }], 'the grant it made')
      assert.equal(promoted, undefined, 'b runs: nobody was made claimable')
      expectApplied(await applyOne(store, finish(b as Fence), T0 + 11), 'finish b, no names')
      same(await grantedAmong(store, ['c']), [], 'nobody granted yet')
      assert.equal((await stats(store)).granted, 0, "b's slot is free already: b is terminal")
      assert.equal((await store.grantQueueSlots([Q, 'never-used'], T0 + 12)).grants.length, 1)
      same(await grantedAmong(store, ['c']), ['c'], 'the pass granted c')
      same(await store.grantQueueSlots([Q], T0 + 13), { grants: [], throttled: [] }, 'nothing more')
      expectApplied(await applyOne(store, finish(c as Fence, [Q]), T0 + 14), 'finish c')
    },
  )

  define("a requeued run's items and grants left by an unnamed end are gone", async (store) => {
    const [h, a] = await line(store, ['h', 'a'])
    await release(store, h as Fence, T0 + 3)
    assert.equal((await store.loadInbox('a')).length, 1, 'a was granted by a message')
    const failed: StoreOp = {
      type: 'finishRun',
      fence: a as Fence,
      status: 'failed',
      output: null,
      error: '{"message":"boom"}',
    }
    expectApplied(await applyOne(store, failed, T0 + 5), 'a fails without naming the queue')
    const requeued = await store.requeueRun({ runId: 'a', epoch: 1, resetSeqs: [], now: T0 + 6 })
    assert.equal(requeued.status, 'applied')
    same(await store.loadInbox('a'), [], 'its grant message is consumed: a replay asks again')
    assert.equal((await stats(store)).granted, 0, "the requeued run's old item is gone")
    const b = await startRun(store, 'b')
    const result = await applyOne(store, enqueueOp(b), T0 + 7)
    same(result, { status: 'applied', granted: true }, 'b takes the free slot')
  })

  define('a cancel releases the run: its slot, and its place in line', async (store) => {
    await line(store, ['a', 'b', 'c', 'd'])
    const cancel = (runId: string): StoreOp => ({ type: 'cancelRun', runId, error: '"stop"' })
    expectApplied(await applyOne(store, cancel('b'), T0 + 10), 'cancel the waiter b')
    assert.equal((await stats(store)).waiting, 2, 'b left the line')
    expectApplied(await applyOne(store, cancel('a'), T0 + 11), 'cancel the holder a')
    same(await grantedAmong(store, ['b', 'c', 'd']), ['c'], 'the cancel granted c, not b')
    same(
      await stats(store),
      unrated({ queue: Q, concurrency: 1, granted: 1, waiting: 1, oldestWaitingSince: T0 + 3 }),
      'c holds, d waits',
    )
  })

  define(
    'a parked run holds no slot and waits for none; unparked, it asks again',
    async (store) => {
      const [a, b, c] = await line(store, ['a', 'b', 'c'])
      const reason = { code: 'E_TEST', message: 'parked by the test' }
      await park(store, a as Fence, reason, T0 + 5)
      ownGrants(store).delete('a')
      same(
        await stats(store),
        unrated({ queue: Q, concurrency: 1, granted: 0, waiting: 2, oldestWaitingSince: T0 + 1 }),
        "the parked holder's slot is free",
      )
      assert.equal((await store.grantQueueSlots([Q], T0 + 6)).grants.length, 1, 'the next pass')
      same(await grantedAmong(store, ['b', 'c']), ['b'], 'to b')
      await park(store, c as Fence, reason, T0 + 7)
      await release(store, b as Fence, T0 + 8)
      same(await grantedAmong(store, ['c']), [], 'c is parked: passed over')
      assert.equal((await stats(store)).waiting, 0, 'a parked waiter is not waiting')
      assert.equal(await store.unpark([ORDERS_V1], 'E_TEST', T0 + 9), 2, 'a and c unparked')
      same(await store.loadInbox('c'), [], 'no grant kept through the park')
      same(
        await stats(store),
        unrated({ queue: Q, concurrency: 1, granted: 0, waiting: 0, oldestWaitingSince: null }),
        'their items went with the unpark',
      )
      const [again] = await store
        .claimRuns({
          owner: 'engine-a',
          now: T0 + 10,
          leaseMs: 30_000,
          limit: 1,
          runnable: [ORDERS_V1],
        })
        .then((r) => r.claimed)
        .then((runs) => runs.map((run) => ({ runId: run.id, epoch: run.leaseEpoch })))
      assert.ok(again !== undefined, 'an unparked run is claimable')
      const asked = await applyOne(store, enqueueOp(again as Fence), T0 + 11)
      same(asked, { status: 'applied', granted: true }, 'it asks again and is granted')
    },
  )

  define(
    'after an unpark or a requeue, a grant of the same attempt is delivered again',
    async (store) => {
      const [h, b] = await line(store, ['h', 'b'])
      await release(store, h as Fence, T0 + 3)
      const first = await store.loadInbox('b')
      same(
        first.map((m) => m.dedupeId),
        [queueGrantId(SEQ, 1)],
        'b granted by a message',
      )
      const reason = { code: 'E_TEST', message: 'parked by the test' }
      await park(store, b as Fence, reason, T0 + 4)
      assert.equal(await store.unpark([ORDERS_V1], 'E_TEST', T0 + 5), 1)
      const x = await startRun(store, 'x', T0 + 6)
      await enqueue(store, x, request(), T0 + 6)
      const claimed = await claim(store, { now: T0 + 7, limit: 1 })
      const again = claimed.claimed.map((run) => ({ runId: run.id, epoch: run.leaseEpoch }))[0]
      assert.equal(again?.runId, 'b', 'the unparked run is claimed')
      const asked = await applyOne(store, enqueueOp(again as Fence), T0 + 8)
      same(asked, { status: 'applied' }, 'b asks again, under the same attempt, and waits')
      await release(store, x, T0 + 9)
      same(
        (await store.loadInbox('b')).map((m) => m.dedupeId),
        [queueGrantId(SEQ, 1)],
        'its new grant arrives (not taken for the first one, which the park consumed)',
      )
      // The same after a requeue: b fails, is requeued, asks again behind a holder.
      const failed: StoreOp = {
        type: 'finishRun',
        fence: again as Fence,
        status: 'failed',
        output: null,
        error: '{"message":"boom"}',
        releaseQueues: [Q],
      }
      expectApplied(await applyOne(store, failed, T0 + 10), 'b fails')
      const requeued = await store.requeueRun({
        runId: 'b',
        epoch: again?.epoch as number,
        resetSeqs: [],
        now: T0 + 11,
      })
      assert.equal(requeued.status, 'applied')
      const y = await startRun(store, 'y', T0 + 12)
      await enqueue(store, y, request(), T0 + 12)
      const third = (await claim(store, { now: T0 + 13, limit: 1 })).claimed[0]
      assert.equal(third?.id, 'b')
      const fence = { runId: 'b', epoch: third?.leaseEpoch as number }
      same(await applyOne(store, enqueueOp(fence), T0 + 14), { status: 'applied' }, 'waits')
      await release(store, y, T0 + 15)
      same(
        (await store.loadInbox('b')).map((m) => m.dedupeId),
        [queueGrantId(SEQ, 1)],
        'granted by a message once more',
      )
    },
  )

  define(
    'the newest concurrency wins: raised grants more, lowered evicts nobody',
    async (store) => {
      const [a, b, c, d] = await line(store, ['a', 'b', 'c', 'd'], () =>
        request({ concurrency: 1 }),
      )
      const e = await startRun(store, 'e')
      await enqueue(store, e, request({ concurrency: 3 }), T0 + 10)
      same(await grantedAmong(store, ['a', 'b', 'c', 'd', 'e']), ['a', 'b', 'c'], 'three slots')
      const f = await startRun(store, 'f')
      await enqueue(store, f, request({ concurrency: 1 }), T0 + 11)
      assert.equal((await stats(store)).granted, 3, 'nobody evicted')
      await release(store, a as Fence, T0 + 12)
      await release(store, b as Fence, T0 + 13)
      same(await grantedAmong(store, ['c', 'd', 'e', 'f']), ['c'], 'no grant above the new limit')
      await release(store, c as Fence, T0 + 14)
      same(await grantedAmong(store, ['d', 'e', 'f']), ['d'], 'one slot again')
      void d
    },
  )

  define('a save that does not apply enqueues and releases nothing', async (store) => {
    const [a] = await line(store, ['a'])
    const b = await startRun(store, 'b')
    const stale: Fence = { runId: 'b', epoch: 99 }
    const [result] = await apply(store, [enqueueOp(stale)], T0 + 1)
    assert.equal(result?.status, 'fenced')
    assert.equal((await stats(store)).waiting, 0, 'no item for a fenced save')
    await enqueue(store, b, request(), T0 + 2)
    const done = checkpoint('a', SEQ, { kind: 'step' })
    await apply(store, [{ type: 'saveCheckpoint', fence: a as Fence, checkpoint: done }], T0 + 3)
    const replay: StoreOp = {
      type: 'saveCheckpoint',
      fence: a as Fence,
      checkpoint: done,
      release: Q,
    }
    assert.equal((await applyOne(store, replay, T0 + 4)).status, 'conflict')
    same(await grantedAmong(store, ['b']), [], 'a conflicting save released nothing')
  })

  define('racing enqueues never grant more than the concurrency', async (store) => {
    const ids = Array.from({ length: 12 }, (_, i) => `r${i}`)
    // Started one by one: the race under test is the enqueues'.
    const fences: Fence[] = []
    for (const id of ids) fences.push(await startRun(store, id))
    const results = await Promise.all(
      fences.map((fence) => store.applyBatch([enqueueOp(fence, request({ concurrency: 3 }))], T0)),
    )
    results.forEach(([r], i) => noteOwnGrant(store, ids[i] as string, r))
    const grantedNow = results.filter(([r]) => r?.status === 'applied' && r.granted === true)
    assert.equal(grantedNow.length, 3, 'three saves were answered granted')
    same((await grantedAmong(store, ids)).length, 3, 'three holders')
    for (let k = 0; k < 9; k++) {
      const held = await grantedAmong(store, ids)
      await Promise.all(
        held.map((id) => release(store, fences[ids.indexOf(id)] as Fence, T0 + 10 + k)),
      )
      const after = await grantedAmong(store, ids)
      assert.ok(after.length <= 3, `never above 3 (round ${k}: ${after.length})`)
      if (after.length === 0) break
    }
  })

  define('bad queue fields are refused and nothing in the batch applies', async (store) => {
    const fence = await startRun(store, 'r')
    const other = await startRun(store, 'other')
    const bad: Array<[string, StoreOp]> = [
      ['concurrency 0', enqueueOp(fence, request({ concurrency: 0 }))],
      ['concurrency NaN', enqueueOp(fence, request({ concurrency: Number.NaN }))],
      ['priority 2000', enqueueOp(fence, request({ priority: 2000 }))],
      ['priority 1.5', enqueueOp(fence, request({ priority: 1.5 }))],
      ['attempt 0', enqueueOp(fence, request({ attempt: 0 }))],
      ['empty name', enqueueOp(fence, request({ queue: '' }))],
      ['NUL in name', enqueueOp(fence, request({ queue: 'a\u0000b' }))],
      ['long name', enqueueOp(fence, request({ queue: 'q'.repeat(201) }))],
      ['lone surrogate key', enqueueOp(fence, request({ fairnessKey: '\ud800' }))],
      ['unknown field', enqueueOp(fence, { ...request(), __proto__x: 1 } as QueueRequest)],
      [
        'enqueue with an outcome',
        { type: 'saveCheckpoint', fence, checkpoint: checkpoint('r', SEQ), enqueue: request() },
      ],
      [
        'release with a waiting checkpoint',
        { type: 'saveCheckpoint', fence, checkpoint: waiting('r'), release: Q },
      ],
      [
        'releaseQueues not an array',
        {
          type: 'finishRun',
          fence,
          status: 'completed',
          output: null,
          error: null,
          releaseQueues: Q as unknown as string[],
        },
      ],
    ]
    for (const [what, op] of bad) {
      const first = enqueueOp(other)
      await expectRejection(() => store.applyBatch([first, op], T0), 'E_INVALID_ARGUMENT', what)
    }
    same(await store.queueStats([Q], T0), [], 'nothing was enqueued')
    const names = Array.from({ length: 101 }, (_, i) => `q${i}`)
    await expectRejection(() => store.grantQueueSlots(names, T0), 'E_INVALID_ARGUMENT', '101')
    await expectRejection(
      () => store.queueStats([7 as unknown as string], T0),
      'E_INVALID_ARGUMENT',
      'a number',
    )
  })

  define('queueStats lists the queues that exist, in name order', async (store) => {
    const [a] = await line(store, ['a'], () => request({ queue: 'zeta', concurrency: 4 }))
    const b = await startRun(store, 'b')
    await enqueue(store, b, request({ queue: 'alpha' }), T0 + 1)
    same(
      (await store.queueStats(['zeta', 'nope', 'alpha', 'zeta'], T0)).map((s) => s.queue),
      ['alpha', 'zeta'],
      'existing queues, sorted, once each',
    )
    void a
    // Claims are untouched by queues: a granted run is claimable as its status says.
    assert.equal((await claim(store, { now: T0 + 100_000 })).claimed.length, 2)
  })
}
