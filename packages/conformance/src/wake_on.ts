/**
 * Wake filters (SuspendRunOp.wakeOn): a waiting run is made claimable by a message one of its
 * open waits can take, and not by any other — which is stored, counted and kept for a later
 * wait. Without wakeOn every message wakes. The same rule for deliveries, for notices riding on
 * a finish, and for several messages to one run in one batch; names match whole, never as a
 * prefix or part of another.
 */
import assert from 'node:assert/strict'
import type { DeliverMessageOp, Fence, MessageToDeliver, StateStore } from '@cairn/core/contracts'
import { T0 } from './fixtures.ts'
import type { Define } from './harness.ts'
import { apply, applyOne, claim, expectApplied, mustGetRun, startRun } from './store_calls.ts'

function signal(runId: string, name: string): MessageToDeliver {
  return { runId, kind: 'signal', name, dedupeId: null, payload: '1' }
}

function deliver(runId: string, name: string): DeliverMessageOp {
  return { type: 'deliverMessage', message: signal(runId, name) }
}

async function suspendOn(
  store: StateStore,
  fence: Fence,
  wakeOn: readonly string[] | null | undefined,
  now: number,
  inboxSeen = 0,
): Promise<void> {
  const op = {
    type: 'suspendRun' as const,
    fence,
    wakeAt: null,
    waitingOn: 'signal',
    inboxSeen,
    ...(wakeOn === undefined ? {} : { wakeOn }),
  }
  expectApplied(await applyOne(store, op, now), 'suspendRun')
}

async function availableAt(store: StateStore, runId: string): Promise<number | null> {
  return (await mustGetRun(store, runId)).availableAt
}

export function wakeOnTests(define: Define): void {
  define('a waiting run wakes for a message its wakeOn names, and only for it', async (store) => {
    const fence = await startRun(store, 'run-1', T0)
    await suspendOn(store, fence, ['approval', 'cairn:cancel'], T0 + 1)
    for (const [i, name] of ['other', 'approv', 'approval2', 'xapproval'].entries()) {
      const result = await applyOne(store, deliver('run-1', name), T0 + 2 + i)
      assert.deepEqual(result, { status: 'delivered', seq: i + 1, duplicate: false }, name)
      assert.equal(await availableAt(store, 'run-1'), null, `"${name}" does not wake the run`)
    }
    await applyOne(store, deliver('run-1', 'approval'), T0 + 10)
    assert.equal(await availableAt(store, 'run-1'), T0 + 10, 'the named message wakes it')
    const run = await mustGetRun(store, 'run-1')
    assert.equal(run.inboxSeq, 5, 'every message was counted')
    assert.equal(run.status, 'waiting')
    const names = (await store.loadInbox('run-1')).map((m) => m.name)
    assert.deepEqual(names, ['other', 'approv', 'approval2', 'xapproval', 'approval'])
  })

  define('without wakeOn (absent or null) every message wakes a waiting run', async (store) => {
    for (const [i, wakeOn] of [undefined, null].entries()) {
      const id = `run-${i}`
      const fence = await startRun(store, id, T0)
      await suspendOn(store, fence, wakeOn, T0 + 1)
      await applyOne(store, deliver(id, 'anything'), T0 + 2)
      assert.equal(await availableAt(store, id), T0 + 2, `wakeOn ${String(wakeOn)}`)
    }
  })

  define('each suspend replaces the names of the one before', async (store) => {
    let fence = await startRun(store, 'run-1', T0)
    await suspendOn(store, fence, ['first'], T0 + 1)
    await applyOne(store, deliver('run-1', 'first'), T0 + 2)
    const claimed = await claim(store, { now: T0 + 3 })
    const run = claimed.claimed.find((r) => r.id === 'run-1')
    assert.ok(run !== undefined, 'the woken run is claimed')
    fence = { runId: 'run-1', epoch: run.leaseEpoch }
    // The turn read message 1 (else the suspend would wake the run at once, by its own rule).
    await suspendOn(store, fence, ['second'], T0 + 4, 1)
    await applyOne(store, deliver('run-1', 'first'), T0 + 5)
    assert.equal(await availableAt(store, 'run-1'), null, 'the old name no longer wakes it')
    await applyOne(store, deliver('run-1', 'second'), T0 + 6)
    assert.equal(await availableAt(store, 'run-1'), T0 + 6)
  })

  define('notices riding on a finish follow the same rule', async (store) => {
    const parent = await startRun(store, 'parent', T0)
    await suspendOn(store, parent, ['cairn:child:0'], T0 + 1)
    const finishWith = async (id: string, name: string, now: number) => {
      const fence = await startRun(store, id, now)
      const op = {
        type: 'finishRun' as const,
        fence,
        status: 'completed' as const,
        output: '"ok"',
        error: null,
        notify: signal('parent', name),
      }
      expectApplied(await applyOne(store, op, now), `finishRun ${id}`)
    }
    await finishWith('child-1', 'cairn:child:1', T0 + 2)
    assert.equal(await availableAt(store, 'parent'), null, 'another position: no wake')
    assert.equal((await mustGetRun(store, 'parent')).inboxSeq, 1, 'but it is stored')
    await finishWith('child-0', 'cairn:child:0', T0 + 3)
    assert.equal(await availableAt(store, 'parent'), T0 + 3, 'the awaited child wakes it')
  })

  define('several messages to one run in one batch wake it iff one is named', async (store) => {
    const quiet = await startRun(store, 'quiet', T0)
    const woken = await startRun(store, 'woken', T0)
    await suspendOn(store, quiet, ['go'], T0 + 1)
    await suspendOn(store, woken, ['go'], T0 + 1)
    const ops = [
      deliver('quiet', 'a'),
      deliver('quiet', 'b'),
      deliver('woken', 'a'),
      deliver('woken', 'go'),
      deliver('woken', 'b'),
    ]
    const results = await apply(store, ops, T0 + 2)
    assert.ok(
      results.every((r) => r.status === 'delivered'),
      JSON.stringify(results),
    )
    assert.equal(await availableAt(store, 'quiet'), null)
    assert.equal(await availableAt(store, 'woken'), T0 + 2)
    assert.equal((await mustGetRun(store, 'quiet')).inboxSeq, 2)
    assert.equal((await mustGetRun(store, 'woken')).inboxSeq, 3)
  })
}
