/**
 * Whole runs on a queue (NewRun.queue, RunRecord.queue, RUN_SLOT_SEQ): a run stores the queue
 * it was started on, returned by every read; its turns hold a slot as the item of position
 * RUN_SLOT_SEQ, which keeps its slot while the run takes and records other positions and is
 * released by the run's end — the seq at the top of the range round-trips on every store.
 */
import assert from 'node:assert/strict'
import { RUN_SLOT_SEQ, queueGrantId, queueSlotMessage } from '@cairn/core/store-kit'
import type { Fence, NewRun, StateStore, StoreOp } from '@cairn/core/contracts'
import { LEASE_MS, OWNER_A, T0, checkpoint, createdRecord, newRun } from './fixtures.ts'
import { expectRejection, same, type Define } from './harness.ts'
import { Q, request, stats, unrated } from './queue_fixtures.ts'
import {
  apply,
  applyOne,
  checkpoints,
  claim,
  expectApplied,
  mustGetRun,
  save,
} from './store_calls.ts'

function onQueue(id: string, queue: string, at = T0): NewRun {
  return { ...newRun(id, { createdAt: at }), queue }
}

/** The run's slot request: a `waiting` checkpoint at RUN_SLOT_SEQ with an enqueue. */
function askSlot(fence: Fence, concurrency = 1): StoreOp {
  const cp = checkpoint(fence.runId, RUN_SLOT_SEQ, {
    kind: 'step',
    name: 'cairn:run-slot',
    status: 'waiting',
    attempts: 0,
    order: null,
    output: null,
  })
  return { type: 'saveCheckpoint', fence, checkpoint: cp, enqueue: request({ concurrency }) }
}

async function startOnQueue(store: StateStore, id: string, at: number): Promise<Fence> {
  const claimOp = { owner: OWNER_A, leaseMs: LEASE_MS }
  const op: StoreOp = { type: 'createRun', run: onQueue(id, Q, at), claim: claimOp }
  same(await applyOne(store, op, at), { status: 'applied', epoch: 1 }, `create ${id}`)
  return { runId: id, epoch: 1 }
}

export function runQueueTests(define: Define): void {
  define('a run stores its queue (absent is null), claimed or not', async (store) => {
    // Astral characters count as one code point each: 200 of them is the longest name.
    const longest = '𝄞'.repeat(200)
    const queued = onQueue('queued', 'carrier')
    const long = onQueue('long', longest)
    const plain = newRun('plain', { createdAt: T0 })
    const claimOp = { owner: OWNER_A, leaseMs: LEASE_MS }
    const ops: StoreOp[] = [
      { type: 'createRun', run: queued },
      { type: 'createRun', run: long, claim: claimOp },
      { type: 'createRun', run: plain },
    ]
    for (const result of await apply(store, ops, T0)) expectApplied(result, 'createRun')
    same(await mustGetRun(store, 'queued'), createdRecord(queued, T0), 'queue as stored')
    same(await mustGetRun(store, 'long'), createdRecord(long, T0, claimOp), 'a 200-point name')
    assert.equal((await mustGetRun(store, 'plain')).queue, null, 'no queue given: null')
    const claimed = await claim(store, { now: T0 + 1, limit: 10 })
    same(
      claimed.claimed.map((r) => [r.id, r.queue]).sort(),
      [
        ['plain', null],
        ['queued', 'carrier'],
      ],
      'a claim returns each run with its queue',
    )
    const listed = await store.listRuns({ limit: 10 })
    same(
      listed.runs.map((r) => [r.id, r.queue]).sort(),
      [
        ['long', longest],
        ['plain', null],
        ['queued', 'carrier'],
      ],
      'listRuns too',
    )
  })

  define('a malformed queue name is refused and nothing in the batch applies', async (store) => {
    const bad: unknown[] = ['', 'a\u0000b', '\ud800', 'x'.repeat(201), 5, null]
    for (const queue of bad) {
      const ops: StoreOp[] = [
        { type: 'createRun', run: newRun('fine', { createdAt: T0 }) },
        { type: 'createRun', run: { ...newRun('bad', { createdAt: T0 }), queue } as NewRun },
      ]
      await expectRejection(
        () => store.applyBatch(ops, T0),
        'E_INVALID_ARGUMENT',
        `queue ${JSON.stringify(queue)}`,
      )
      assert.equal(await store.getRun('fine'), null, `nothing applied for ${String(queue)}`)
    }
  })

  define("a run's slot is held while it runs other positions, freed by its end", async (store) => {
    const a = await startOnQueue(store, 'a', T0)
    const b = await startOnQueue(store, 'b', T0 + 1)
    same(await applyOne(store, askSlot(a), T0 + 2), { status: 'applied', granted: true }, 'a')
    same(await applyOne(store, askSlot(b), T0 + 3), { status: 'applied' }, 'b waits in line')
    // a runs its body: positions 0 and 1 are recorded, its slot stays taken.
    await save(store, a, checkpoint('a', 0, { kind: 'step' }), T0 + 4)
    await save(store, a, checkpoint('a', 1, { kind: 'step' }), T0 + 5)
    same(
      await stats(store),
      unrated({ queue: Q, concurrency: 1, granted: 1, waiting: 1, oldestWaitingSince: T0 + 3 }),
      'a holds the slot through its steps',
    )
    // A later turn of a asks again: the same item, still granted, no second slot.
    same(await applyOne(store, askSlot(a), T0 + 6), { status: 'applied', granted: true }, 'again')
    same(
      (await checkpoints(store, 'a')).map((cp) => [cp.seq, cp.status]),
      [
        [0, 'completed'],
        [1, 'completed'],
        [RUN_SLOT_SEQ, 'waiting'],
      ],
      'the slot position reads back exactly, after every body position',
    )
    const finish: StoreOp = {
      type: 'finishRun',
      fence: a,
      status: 'completed',
      output: '"done"',
      error: null,
      releaseQueues: [Q],
    }
    const ended = await applyOne(store, finish, T0 + 10)
    const inbox = await store.loadInbox('b')
    same(
      inbox.map((m) => [m.name, m.dedupeId]),
      [[queueSlotMessage(RUN_SLOT_SEQ), queueGrantId(RUN_SLOT_SEQ, 1)]],
      "a's end granted b's run slot",
    )
    const grants = [{ runId: 'b', seq: RUN_SLOT_SEQ, attempt: 1, inboxSeq: inbox[0]?.seq }]
    same(ended, { status: 'applied', grants }, 'the finish reports the grant')
  })
}
