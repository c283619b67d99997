/**
 * Broadcast events: the event log (appendEvent, loadEvents, pruning) and registered event
 * waits — written by an applied suspend, removed by the settled `event` checkpoint of their
 * position, by a finish with `clearEventWaits`, or by removeEventWaits — read by name.
 */
import assert from 'node:assert/strict'
import type {
  EventRecord,
  EventWaitRecord,
  EventWaitToRegister,
  Fence,
  StateStore,
  StoreOp,
} from '@cairn/core/contracts'
import { T0, checkpoint } from './fixtures.ts'
import { same, type Define } from './harness.ts'
import { apply, applyOne, expectApplied, expectFenced, startRun } from './store_calls.ts'

const KEEP_ALL = { before: 0, limit: 100 }

function event(id: string, publishedAt: number, name = 'order.paid'): EventRecord {
  return { id, name, payload: JSON.stringify({ id, text: 'é 🎉 \\u0000' }), publishedAt }
}

function wait(seq: number, name = 'order.paid', startedAt = T0): EventWaitToRegister {
  return { seq, name, match: seq % 2 === 0 ? null : JSON.stringify({ 'order.id': seq }), startedAt }
}

function suspendWith(fence: Fence, waits: EventWaitToRegister[]): StoreOp {
  return {
    type: 'suspendRun',
    fence,
    wakeAt: null,
    waitingOn: 'event',
    inboxSeen: 0,
    eventWaits: waits,
  }
}

/** The registered waits of `name`, checked for shape, in (runId, seq) order. */
async function waitsOf(store: StateStore, name: string): Promise<EventWaitRecord[]> {
  const rows = await store.loadEventWaits(name)
  assert.ok(Array.isArray(rows), 'loadEventWaits must resolve to an array')
  for (const [i, row] of rows.entries()) {
    assert.ok(Number.isSafeInteger(row.seq), `loadEventWaits()[${i}].seq must be an integer`)
    assert.ok(Number.isSafeInteger(row.startedAt), `loadEventWaits()[${i}].startedAt integer`)
  }
  return [...rows].sort((a, b) =>
    a.runId === b.runId ? a.seq - b.seq : a.runId < b.runId ? -1 : 1,
  )
}

function places(waits: readonly EventWaitRecord[]): string[] {
  return waits.map((w) => `${w.runId}#${w.seq}`)
}

export function eventTests(define: Define): void {
  define(
    'appendEvent stores the event; loadEvents reads one name since a time, oldest first, byte for byte',
    async (store) => {
      for (const e of [
        event('b', T0 + 2),
        event('a', T0 + 2),
        event('c', T0),
        event('x', T0 + 1, 'other'),
      ])
        same(
          await store.appendEvent(e, KEEP_ALL),
          { publishedAt: e.publishedAt, appended: true, batches: [] },
          `append ${e.id}`,
        )
      same(
        await store.loadEvents('order.paid', T0),
        [event('c', T0), event('a', T0 + 2), event('b', T0 + 2)],
        'every event of the name, by publication time then id',
      )
      same(
        await store.loadEvents('order.paid', T0 + 1),
        [event('a', T0 + 2), event('b', T0 + 2)],
        'since is inclusive and excludes earlier events',
      )
      same(await store.loadEvents('order.paid', T0 + 3), [], 'nothing newer')
      same(await store.loadEvents('missing', 0), [], 'an unknown name: []')
    },
  )

  define(
    'appendEvent with an id already logged changes nothing and reports the first publication time',
    async (store) => {
      await store.appendEvent(event('e-1', T0), KEEP_ALL)
      const retried = { ...event('e-1', T0 + 500), payload: '"different"' }
      same(
        await store.appendEvent(retried, KEEP_ALL),
        { publishedAt: T0, appended: false, batches: [] },
        'the stored time',
      )
      same(
        await store.loadEvents('order.paid', 0),
        [event('e-1', T0)],
        'the first event, unchanged',
      )
    },
  )

  define(
    'appendEvent prunes at most `limit` events published before `before`, never the one appended',
    async (store) => {
      for (let i = 0; i < 5; i++) await store.appendEvent(event(`old-${i}`, T0 + i), KEEP_ALL)
      await store.appendEvent(event('new', T0 + 10), { before: T0 + 4, limit: 2 })
      same(
        (await store.loadEvents('order.paid', 0)).map((e) => e.id),
        ['old-2', 'old-3', 'old-4', 'new'],
        'the two oldest before T0+4 are gone',
      )
      await store.appendEvent(event('late', T0 + 1), { before: T0 + 20, limit: 100 })
      same(
        (await store.loadEvents('order.paid', 0)).map((e) => e.id),
        ['late'],
        'everything before `before` pruned, except the event just appended',
      )
    },
  )

  define(
    'an applied suspend registers its event waits; a fenced one registers nothing',
    async (store) => {
      const fence = await startRun(store, 'run-a')
      expectApplied(
        await applyOne(store, suspendWith(fence, [wait(0), wait(1), wait(2, 'other')]), T0),
        'suspend',
      )
      same(
        await waitsOf(store, 'order.paid'),
        [
          { runId: 'run-a', ...wait(0) },
          { runId: 'run-a', ...wait(1) },
        ],
        'the waits of the name, as registered',
      )
      same(places(await waitsOf(store, 'other')), ['run-a#2'], 'another name')
      const fenced = await applyOne(store, suspendWith(fence, [wait(3)]), T0 + 1)
      expectFenced(fenced, { status: 'waiting', epoch: 1 }, 'a suspend of a run already waiting')
      same(places(await waitsOf(store, 'order.paid')), ['run-a#0', 'run-a#1'], 'nothing registered')
      same(await waitsOf(store, 'missing'), [], 'an unknown name: []')
    },
  )

  define(
    'a wait registered again (a later suspend of the same wait) keeps its first registration',
    async (store) => {
      const fence = await startRun(store, 'run-a')
      expectApplied(await applyOne(store, suspendWith(fence, [wait(0)]), T0), 'first suspend')
      const [epoch] = await claimAgain(store, 'run-a', T0 + 1)
      const again = { ...wait(0), match: '{"other":1}', startedAt: T0 + 1 }
      const second = suspendWith({ runId: 'run-a', epoch: epoch as number }, [again, wait(1)])
      expectApplied(await applyOne(store, second, T0 + 2), 'second suspend')
      same(
        await waitsOf(store, 'order.paid'),
        [
          { runId: 'run-a', ...wait(0) },
          { runId: 'run-a', ...wait(1) },
        ],
        'position 0 as first registered; position 1 added',
      )
    },
  )

  define(
    'the settled event checkpoint of a position removes its wait, in the same batch as other runs’ registrations',
    async (store) => {
      const a = await startRun(store, 'run-a')
      const b = await startRun(store, 'run-b')
      expectApplied(await applyOne(store, suspendWith(a, [wait(0), wait(1)]), T0), 'suspend a')
      const [epoch] = await claimAgain(store, 'run-a', T0 + 1)
      const a2: Fence = { runId: 'run-a', epoch: epoch as number }
      const settled = checkpoint('run-a', 0, { kind: 'event', name: 'order.paid' })
      const stillWaiting = checkpoint('run-a', 1, {
        kind: 'event',
        name: 'order.paid',
        status: 'waiting',
        order: null,
        output: null,
      })
      const local = checkpoint('run-b', 0)
      const results = await apply(
        store,
        [
          { type: 'saveCheckpoint', fence: a2, checkpoint: settled },
          { type: 'saveCheckpoint', fence: a2, checkpoint: stillWaiting },
          { type: 'saveCheckpoint', fence: b, checkpoint: local },
          suspendWith(b, [wait(5)]),
        ],
        T0 + 2,
      )
      results.forEach((r, i) => expectApplied(r, `op ${i}`))
      same(
        places(await waitsOf(store, 'order.paid')),
        ['run-a#1', 'run-b#5'],
        'the settled wait is gone, the waiting one stays, run-b registered',
      )
      const stale = {
        type: 'saveCheckpoint' as const,
        fence: { runId: 'run-b', epoch: 1 },
        checkpoint: checkpoint('run-b', 5, { kind: 'event', name: 'order.paid' }),
      }
      expectFenced(
        await applyOne(store, stale, T0 + 3),
        { status: 'waiting', epoch: 1 },
        'a fenced save',
      )
      same(
        places(await waitsOf(store, 'order.paid')),
        ['run-a#1', 'run-b#5'],
        'a fenced save removes nothing',
      )
    },
  )

  define(
    'a finish with clearEventWaits removes every wait of its run, only when it applies',
    async (store) => {
      const a = await startRun(store, 'run-a')
      const b = await startRun(store, 'run-b')
      expectApplied(
        await applyOne(store, suspendWith(a, [wait(0), wait(1, 'other')]), T0),
        'suspend a',
      )
      expectApplied(await applyOne(store, suspendWith(b, [wait(0)]), T0), 'suspend b')
      const [epochA] = await claimAgain(store, 'run-a', T0 + 1)
      const finishOf = (fence: Fence, clear: boolean): StoreOp => ({
        type: 'finishRun',
        fence,
        status: 'completed',
        output: '"done"',
        error: null,
        ...(clear ? { clearEventWaits: true } : {}),
      })
      expectFenced(
        await applyOne(store, finishOf({ runId: 'run-a', epoch: 1 }, true), T0 + 2),
        { status: 'running', epoch: epochA as number },
        'a stale finish',
      )
      same(places(await waitsOf(store, 'other')), ['run-a#1'], 'a fenced finish removes nothing')
      expectApplied(
        await applyOne(store, finishOf({ runId: 'run-a', epoch: epochA as number }, true), T0 + 3),
        'finish a',
      )
      same(places(await waitsOf(store, 'order.paid')), ['run-b#0'], 'run-a’s waits are gone')
      same(await waitsOf(store, 'other'), [], 'under every name')
    },
  )

  define(
    'removeEventWaits removes the given places and counts them; unknown places are skipped',
    async (store) => {
      const a = await startRun(store, 'run-a')
      expectApplied(
        await applyOne(store, suspendWith(a, [wait(0), wait(1), wait(2)]), T0),
        'suspend',
      )
      same(
        await store.removeEventWaits([
          { runId: 'run-a', seq: 0 },
          { runId: 'run-a', seq: 2 },
          { runId: 'run-a', seq: 9 },
          { runId: 'nobody', seq: 0 },
        ]),
        2,
        'two removed',
      )
      same(places(await waitsOf(store, 'order.paid')), ['run-a#1'], 'the rest stays')
      same(await store.removeEventWaits([]), 0, 'nothing to remove')
    },
  )

  define('an event message is kept with its kind and consumed like a signal', async (store) => {
    const a = await startRun(store, 'run-a')
    expectApplied(await applyOne(store, suspendWith(a, [wait(0)]), T0), 'suspend')
    const deliver: StoreOp = {
      type: 'deliverMessage',
      message: {
        runId: 'run-a',
        kind: 'event',
        name: 'cairn:event:0',
        dedupeId: 'cairn:event:e-1:0',
        payload: '{"n":1}',
      },
    }
    same(
      await applyOne(store, deliver, T0 + 1),
      { status: 'delivered', seq: 1, duplicate: false },
      'delivered',
    )
    same(
      await applyOne(store, deliver, T0 + 2),
      { status: 'delivered', seq: 1, duplicate: true },
      'once per dedupe id',
    )
    same(
      (await store.loadInbox('run-a')).map((m) => [m.kind, m.name, m.payload]),
      [['event', 'cairn:event:0', '{"n":1}']],
      'the message, with its kind',
    )
  })
}

/** Claims `runId` (made claimable now) and returns its new epoch. */
async function claimAgain(store: StateStore, runId: string, now: number): Promise<number[]> {
  const wake: StoreOp = {
    type: 'deliverMessage',
    message: { runId, kind: 'signal', name: 'wake', dedupeId: null, payload: 'null' },
  }
  await applyOne(store, wake, now)
  const { claimed } = await store.claimRuns({
    owner: 'engine-a',
    now,
    leaseMs: 30_000,
    limit: 10,
    runnable: [{ workflow: 'orders', version: 'v1' }],
  })
  const run = claimed.find((r) => r.id === runId)
  assert.ok(run, `${runId} claimed again`)
  return [run.leaseEpoch]
}
