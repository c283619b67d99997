/**
 * Retention (contracts/retention.ts): deleteRunTrees deletes finished trees with every row of
 * their runs, refuses a tree with an open run or an open parent whole, keeps within `maxRuns`
 * (deepest runs first), and is exact under racing calls; expiredRuns pages finished runs of a
 * scope in finish order, never offering one an open parent waits on; retentionCutoff finds
 * where a count policy's kept runs begin.
 */
import assert from 'node:assert/strict'
import type {
  DeleteRunTreesRequest,
  Fence,
  FinishedPosition,
  RunTreeDeletion,
  StateStore,
  StoreOp,
  TerminalStatus,
  WorkflowKey,
} from '@cairn/core/contracts'
import { BILLING_V1, LEASE_MS, ORDERS_V1, OWNER_A, T0, checkpoint, newRun } from './fixtures.ts'
import { expectRejection, same, type Define } from './harness.ts'
import {
  apply,
  applyOne,
  checkpoints,
  claim,
  expectApplied,
  listAll,
  mustGetRun,
  save,
} from './store_calls.ts'

const INVALID = 'E_INVALID_ARGUMENT'
const END: FinishedPosition = { finishedAt: T0 + 10_000_000, runId: '' }

interface RunShape {
  parent?: string
  key?: WorkflowKey
  tags?: string[]
}

/** Creates `id` leased to OWNER_A at `at` (epoch 1), as a child of `shape.parent` if given. */
async function started(store: StateStore, id: string, at: number, shape: RunShape = {}) {
  const run = {
    ...newRun(id, { key: shape.key, createdAt: at }),
    ...(shape.parent === undefined ? {} : { parent: { runId: shape.parent, seq: 1 } }),
    ...(shape.tags === undefined ? {} : { tags: shape.tags }),
  }
  const op: StoreOp = { type: 'createRun', run, claim: { owner: OWNER_A, leaseMs: LEASE_MS } }
  expectApplied(await applyOne(store, op, at), `createRun ${id}`)
  return { runId: id, epoch: 1 } satisfies Fence
}

async function end(store: StateStore, fence: Fence, at: number, status: TerminalStatus) {
  const error = status === 'completed' ? null : '{"name":"Error","message":"x"}'
  const output = status === 'completed' ? '"ok"' : null
  const op: StoreOp = { type: 'finishRun', fence, status, output, error }
  expectApplied(await applyOne(store, op, at), `finishRun ${fence.runId}`)
}

/** A run created at `at` and finished `status` at `at + 1`. */
async function finished(
  store: StateStore,
  id: string,
  at: number,
  status: TerminalStatus = 'completed',
  shape: RunShape = {},
): Promise<void> {
  await end(store, await started(store, id, at, shape), at + 1, status)
}

async function remove(store: StateStore, runIds: string[], maxRuns = 1000) {
  const request: DeleteRunTreesRequest = { runIds, maxRuns }
  return (await store.deleteRunTrees(request)).trees
}

async function gone(store: StateStore, ids: string[]): Promise<void> {
  for (const id of ids) assert.equal(await store.getRun(id), null, `${id} is deleted`)
}

function outcomes(trees: readonly RunTreeDeletion[]): string[] {
  return trees.map((t) => `${t.runId}:${t.outcome}${'runs' in t ? `:${t.runs}` : ''}`)
}

export function retentionTests(define: Define): void {
  define('a finished run goes with every row of its own; other runs keep theirs', async (s) => {
    const fence = await started(s, 'doomed', T0, { tags: ['shop', 'eu'] })
    await save(s, fence, checkpoint('doomed', 1), T0 + 1)
    const upsert: StoreOp = {
      type: 'saveCheckpoint',
      fence,
      checkpoint: checkpoint('doomed', 2, { kind: 'search_attrs', name: 'search_attributes' }),
      searchAttributes: { customer: 'c-1' },
    }
    expectApplied(await applyOne(s, upsert, T0 + 2), 'attributes')
    const wait = { seq: 3, name: 'order.paid', match: null, startedAt: T0 + 3 }
    const suspend: StoreOp = {
      type: 'suspendRun',
      fence,
      wakeAt: T0 + 10,
      waitingOn: 'event',
      inboxSeen: 0,
      eventWaits: [wait],
    }
    expectApplied(await applyOne(s, suspend, T0 + 3), 'suspend with an event wait')
    const message: StoreOp = {
      type: 'deliverMessage',
      message: { runId: 'doomed', kind: 'signal', name: 'go', dedupeId: 'd-1', payload: '1' },
    }
    same((await applyOne(s, message, T0 + 4)).status, 'delivered', 'a signal')
    const { claimed } = await claim(s, { now: T0 + 10 })
    assert.deepEqual(
      claimed.map((r) => r.id),
      ['doomed'],
    )
    await end(s, { runId: 'doomed', epoch: 2 }, T0 + 11, 'completed')
    const kept = await started(s, 'kept', T0, { tags: ['shop'] })
    await save(s, kept, checkpoint('kept', 1), T0 + 1)

    same(outcomes(await remove(s, ['doomed'])), ['doomed:deleted:1'], 'deleted')
    await gone(s, ['doomed'])
    same(await checkpoints(s, 'doomed'), [], 'its checkpoints')
    same(await s.loadInbox('doomed'), [], 'its inbox')
    same(await s.loadEventWaits('order.paid'), [], 'its event waits')
    same([...(await s.loadSearchAttributes(['doomed'])).keys()], [], 'its search attributes')
    same(
      (await listAll(s, { tag: 'eu' })).map((r) => r.id),
      [],
      'its tags',
    )
    same(
      (await listAll(s, { tag: 'shop' })).map((r) => r.id),
      ['kept'],
      "the other run's tag",
    )
    same((await checkpoints(s, 'kept')).length, 1, "the other run's checkpoint")
    same(outcomes(await remove(s, ['doomed'])), ['doomed:not_found'], 'a second delete')
    // The id is free again: a new run under it starts from nothing.
    await started(s, 'doomed', T0 + 20)
    same((await checkpoints(s, 'doomed')).length, 0, 'a new run under the id')
  })

  define('a run goes with its whole subtree, and only that', async (s) => {
    const root = await started(s, 'root', T0)
    await finished(s, 'root/1', T0 + 1, 'completed', { parent: 'root' })
    await finished(s, 'root/2', T0 + 1, 'failed', { parent: 'root' })
    const child = await started(s, 'root/1/1', T0 + 2, { parent: 'root/1' })
    await end(s, child, T0 + 3, 'dead')
    await end(s, root, T0 + 4, 'completed')
    await finished(s, 'other', T0 + 1)
    same(outcomes(await remove(s, ['root'])), ['root:deleted:4'], 'the tree')
    await gone(s, ['root', 'root/1', 'root/2', 'root/1/1'])
    assert.ok((await s.getRun('other')) !== null, 'an unrelated run stays')
  })

  define('a tree with an open run, or an open parent, is refused whole', async (s) => {
    // An open root.
    await started(s, 'open', T0)
    // An open grandchild under a finished root.
    const top = await started(s, 'top', T0)
    await finished(s, 'top/1', T0 + 1, 'completed', { parent: 'top' })
    await started(s, 'top/1/1', T0 + 2, { parent: 'top/1' })
    await end(s, top, T0 + 3, 'completed')
    // A finished child of an open parent.
    await started(s, 'busy', T0)
    await finished(s, 'busy/1', T0 + 1, 'completed', { parent: 'busy' })
    await finished(s, 'free', T0 + 1)
    const trees = await remove(s, ['open', 'top', 'busy/1', 'free'])
    same(
      trees,
      [
        {
          runId: 'open',
          outcome: 'refused',
          blocker: { runId: 'open', status: 'running', relation: 'self' },
        },
        {
          runId: 'top',
          outcome: 'refused',
          blocker: { runId: 'top/1/1', status: 'running', relation: 'descendant' },
        },
        {
          runId: 'busy/1',
          outcome: 'refused',
          blocker: { runId: 'busy', status: 'running', relation: 'parent' },
        },
        { runId: 'free', outcome: 'deleted', runs: 1 },
      ],
      'outcomes',
    )
    for (const id of ['open', 'top', 'top/1', 'top/1/1', 'busy', 'busy/1'])
      assert.ok((await s.getRun(id)) !== null, `${id} stays`)
  })

  define('a child of a finished parent goes alone; the parent stays', async (s) => {
    const parent = await started(s, 'p', T0)
    await finished(s, 'p/1', T0 + 1, 'completed', { parent: 'p' })
    await finished(s, 'p/2', T0 + 1, 'completed', { parent: 'p' })
    await end(s, parent, T0 + 2, 'completed')
    same(outcomes(await remove(s, ['p/1'])), ['p/1:deleted:1'], 'the child')
    assert.ok((await s.getRun('p')) !== null, 'the parent stays')
    assert.ok((await s.getRun('p/2')) !== null, 'its sibling stays')
  })

  define('maxRuns bounds a call: deepest runs first, later trees skipped', async (s) => {
    const root = await started(s, 'big', T0)
    const mid = await started(s, 'big/1', T0 + 1, { parent: 'big' })
    for (const n of [1, 2, 3])
      await finished(s, `big/1/${n}`, T0 + 2, 'completed', { parent: 'big/1' })
    await end(s, mid, T0 + 3, 'completed')
    await end(s, root, T0 + 4, 'completed')
    await finished(s, 'after', T0 + 1)
    same(outcomes(await remove(s, ['big', 'after'], 2)), ['big:partial:2', 'after:skipped'], '1st')
    assert.ok((await s.getRun('big/1')) !== null, 'the middle level stays')
    assert.ok((await s.getRun('after')) !== null, 'a skipped tree stays')
    const left = (await listAll(s, { parentRunId: 'big/1' })).map((r) => r.id)
    same(left.length, 1, 'one grandchild is left')
    same(outcomes(await remove(s, ['big', 'after'], 3)), ['big:deleted:3', 'after:skipped'], '2nd')
    same(outcomes(await remove(s, ['after'], 1)), ['after:deleted:1'], '3rd')
    await gone(s, ['big', 'big/1', 'big/1/1', 'big/1/2', 'big/1/3', 'after'])
  })

  define('a root under another root of the same call is deleted once', async (s) => {
    const root = await started(s, 'r', T0)
    await finished(s, 'r/1', T0 + 1, 'completed', { parent: 'r' })
    await end(s, root, T0 + 2, 'completed')
    same(outcomes(await remove(s, ['r', 'r/1'])), ['r:deleted:2', 'r/1:not_found'], 'parent first')
    const again = await started(s, 'q', T0)
    await finished(s, 'q/1', T0 + 1, 'completed', { parent: 'q' })
    await end(s, again, T0 + 2, 'completed')
    same(outcomes(await remove(s, ['q/1', 'q'])), ['q/1:deleted:1', 'q:deleted:1'], 'child first')
  })

  define('a continued run is kept while its successor is open', async (s) => {
    const fence = await started(s, 'p', T0)
    const successor = { ...newRun('p~next', { createdAt: T0 + 1 }), continuedFrom: 'p' }
    const finish: StoreOp = {
      type: 'finishRun',
      fence,
      status: 'continued',
      output: null,
      error: null,
      continuedTo: 'p~next',
    }
    await apply(s, [{ type: 'createRun', run: successor }, finish], T0 + 1)
    same(
      await remove(s, ['p']),
      [
        {
          runId: 'p',
          outcome: 'refused',
          blocker: { runId: 'p~next', status: 'pending', relation: 'successor' },
        },
      ],
      'the successor reads its predecessor before its first step',
    )
    const page = await s.expiredRuns({ statuses: ['continued'], before: END, limit: 10 })
    same(page, [], 'not offered either')
    const { claimed } = await claim(s, { now: T0 + 2 })
    same(
      claimed.map((r) => r.id),
      ['p~next'],
      'the successor runs',
    )
    await end(s, { runId: 'p~next', epoch: 1 }, T0 + 3, 'completed')
    same(
      (await s.expiredRuns({ statuses: ['continued'], before: END, limit: 10 })).map(
        (r) => r.runId,
      ),
      ['p'],
      'offered once its successor finished',
    )
    same(outcomes(await remove(s, ['p'])), ['p:deleted:1'], 'then deleted')
  })

  define('a child of a failed or dead parent is kept: a requeue replays against it', async (s) => {
    for (const status of ['failed', 'dead'] as const) {
      const parent = await started(s, status, T0)
      await finished(s, `${status}/1`, T0 + 1, 'completed', { parent: status })
      await end(s, parent, T0 + 2, status)
      same(
        await remove(s, [`${status}/1`]),
        [
          {
            runId: `${status}/1`,
            outcome: 'refused',
            blocker: { runId: status, status, relation: 'parent' },
          },
        ],
        `a ${status} parent`,
      )
    }
    const page = await s.expiredRuns({ statuses: ['completed'], before: END, limit: 10 })
    same(page, [], 'neither child is offered')
    same(outcomes(await remove(s, ['failed'])), ['failed:deleted:2'], 'the parent takes its child')
  })

  define('a failed run is kept while its dead letter is open', async (s) => {
    await finished(s, 'lost', T0, 'failed')
    const letter = { ...newRun('dlq:lost', { createdAt: T0 + 2 }) }
    expectApplied(await applyOne(s, { type: 'createRun', run: letter }, T0 + 2), 'the letter')
    same(
      await remove(s, ['lost']),
      [
        {
          runId: 'lost',
          outcome: 'refused',
          blocker: { runId: 'dlq:lost', status: 'pending', relation: 'dead_letter' },
        },
      ],
      'the letter reads how its run ended',
    )
    const { claimed } = await claim(s, { now: T0 + 3 })
    await end(s, { runId: (claimed[0] as { id: string }).id, epoch: 1 }, T0 + 4, 'completed')
    same(outcomes(await remove(s, ['lost'])), ['lost:deleted:1'], 'once the letter ended')
  })

  define('expect: a root that is no longer what the caller found is left alone', async (s) => {
    await finished(s, 'old', T0, 'failed')
    await finished(s, 'fresh', T0 + 100, 'failed')
    const trees = await s.deleteRunTrees({
      runIds: ['old', 'fresh'],
      maxRuns: 10,
      expect: { statuses: ['failed'], finishedBefore: { finishedAt: T0 + 50, runId: '' } },
    })
    same(outcomes(trees.trees), ['old:deleted:1', 'fresh:changed'], 'finished after the bound')
    const other = await s.deleteRunTrees({
      runIds: ['fresh'],
      maxRuns: 10,
      expect: { statuses: ['completed'] },
    })
    same(outcomes(other.trees), ['fresh:changed'], 'another status')
    assert.ok((await s.getRun('fresh')) !== null, 'kept')
  })

  define('a wide tree goes over bounded calls, deepest first', async (s) => {
    const root = await started(s, 'wide', T0)
    const children = Array.from({ length: 1_500 }, (_, i) => `wide/${String(i).padStart(4, '0')}`)
    for (const [i, id] of children.entries()) {
      const run = { ...newRun(id, { createdAt: T0 + 1 }), parent: { runId: 'wide', seq: i } }
      const op: StoreOp = { type: 'createRun', run, claim: { owner: OWNER_A, leaseMs: LEASE_MS } }
      const done: StoreOp = {
        type: 'finishRun',
        fence: { runId: id, epoch: 1 },
        status: 'completed',
        output: null,
        error: null,
      }
      await apply(s, [op, done], T0 + 1)
    }
    await end(s, root, T0 + 2, 'completed')
    same(outcomes(await remove(s, ['wide'], 1_000)), ['wide:partial:1000'], 'the first call')
    same((await listAll(s, { parentRunId: 'wide' })).length, 500, 'children left')
    same(outcomes(await remove(s, ['wide'], 1_000)), ['wide:deleted:501'], 'the second call')
    await gone(s, ['wide', ...children.slice(0, 3), ...children.slice(-3)])
  })

  define('racing deletes of the same trees delete each one once', async (s) => {
    const ids = Array.from({ length: 12 }, (_, i) => `race-${String(i).padStart(2, '0')}`)
    for (const id of ids) {
      const fence = await started(s, id, T0)
      await finished(s, `${id}/1`, T0 + 1, 'completed', { parent: id })
      await end(s, fence, T0 + 2, 'completed')
    }
    const calls = [ids, [...ids].reverse(), ids.slice(3), ids.slice(0, 6)]
    const results = await Promise.all(calls.map((runIds) => remove(s, runIds)))
    const deleted = results.flat().filter((t) => t.outcome === 'deleted')
    same(deleted.map((t) => t.runId).sort(), ids, 'each tree deleted by one call')
    same(
      deleted.map((t) => ('runs' in t ? t.runs : 0)),
      ids.map(() => 2),
      'whole trees',
    )
    for (const tree of results.flat())
      assert.ok(
        tree.outcome === 'deleted' || tree.outcome === 'not_found',
        `${tree.runId}: ${tree.outcome}`,
      )
    await gone(
      s,
      ids.flatMap((id) => [id, `${id}/1`]),
    )
  })

  define(
    'expiredRuns: finished runs of the scope in finish order, bounded and paged',
    async (s) => {
      await finished(s, 'c-3', T0 + 30)
      await finished(s, 'c-1', T0 + 10)
      await finished(s, 'c-2b', T0 + 20)
      await finished(s, 'c-2a', T0 + 20)
      await finished(s, 'f-1', T0 + 15, 'failed')
      await finished(s, 'd-1', T0 + 25, 'dead')
      await finished(s, 'b-1', T0 + 12, 'completed', { key: BILLING_V1 })
      await started(s, 'open', T0) // never offered
      const ids = (page: FinishedPosition[]) => page.map((p) => p.runId)
      const all = await s.expiredRuns({ statuses: ['completed'], before: END, limit: 100 })
      same(ids(all), ['c-1', 'b-1', 'c-2a', 'c-2b', 'c-3'], 'completed, oldest first, ties by id')
      same(all[0], { finishedAt: T0 + 11, runId: 'c-1' }, 'a position')
      const many = await s.expiredRuns({
        statuses: ['dead', 'failed', 'completed'],
        before: END,
        limit: 3,
      })
      same(ids(many), ['c-1', 'b-1', 'f-1'], 'statuses merged, limit')
      const next = await s.expiredRuns({
        statuses: ['dead', 'failed', 'completed'],
        before: END,
        after: many[2] as FinishedPosition,
        limit: 3,
      })
      same(ids(next), ['c-2a', 'c-2b', 'd-1'], 'the next page')
      const orders = await s.expiredRuns({
        statuses: ['completed'],
        workflow: ORDERS_V1.workflow,
        before: { finishedAt: T0 + 21, runId: 'c-2b' },
        limit: 100,
      })
      same(ids(orders), ['c-1', 'c-2a'], 'one workflow, before a position (exclusive)')
      const none = await s.expiredRuns({
        statuses: ['cancelled', 'continued'],
        before: END,
        limit: 10,
      })
      same(none, [], 'no run in those statuses')
    },
  )

  define('expiredRuns never offers a run an open parent waits on', async (s) => {
    await started(s, 'busy', T0)
    await finished(s, 'busy/1', T0 + 1, 'completed', { parent: 'busy' })
    const done = await started(s, 'done', T0)
    await finished(s, 'done/1', T0 + 1, 'completed', { parent: 'done' })
    await end(s, done, T0 + 5, 'completed')
    await finished(s, 'orphan/1', T0 + 1, 'completed', { parent: 'never-existed' })
    const page = await s.expiredRuns({ statuses: ['completed'], before: END, limit: 10 })
    same(
      page.map((p) => p.runId),
      ['done/1', 'orphan/1', 'done'],
      'not busy/1',
    )
  })

  define('retentionCutoff: where the newest N of a scope begin', async (s) => {
    for (const [i, id] of ['a', 'b', 'c', 'd'].entries()) await finished(s, id, T0 + 10 * i)
    await finished(s, 'x', T0 + 15, 'failed')
    await finished(s, 'y', T0 + 35, 'completed', { key: BILLING_V1 })
    const at = (keepNewest: number, statuses: TerminalStatus[], workflow?: string) =>
      s.retentionCutoff({ statuses, keepNewest, ...(workflow ? { workflow } : {}) })
    same(await at(1, ['completed']), { finishedAt: T0 + 36, runId: 'y' }, 'the newest')
    same(await at(2, ['completed']), { finishedAt: T0 + 31, runId: 'd' }, 'the second newest')
    same(await at(3, ['completed', 'failed']), { finishedAt: T0 + 21, runId: 'c' }, 'merged')
    same(await at(4, ['completed', 'failed']), { finishedAt: T0 + 16, runId: 'x' }, 'merged 4')
    same(await at(2, ['completed'], 'orders'), { finishedAt: T0 + 21, runId: 'c' }, 'workflow')
    same(await at(6, ['completed']), null, 'fewer runs than kept')
    same(await at(6, ['completed', 'failed']), { finishedAt: T0 + 1, runId: 'a' }, 'exactly 6')
  })

  define('malformed retention calls are refused before anything is read or deleted', async (s) => {
    await finished(s, 'keep', T0)
    const bad: Array<[string, () => Promise<unknown>]> = [
      ['no roots', () => s.deleteRunTrees({ runIds: [], maxRuns: 10 })],
      ['101 roots', () => s.deleteRunTrees({ runIds: ids(101), maxRuns: 10 })],
      ['a repeated root', () => s.deleteRunTrees({ runIds: ['keep', 'keep'], maxRuns: 10 })],
      ['maxRuns 0', () => s.deleteRunTrees({ runIds: ['keep'], maxRuns: 0 })],
      ['maxRuns NaN', () => s.deleteRunTrees({ runIds: ['keep'], maxRuns: Number.NaN })],
      ['maxRuns too large', () => s.deleteRunTrees({ runIds: ['keep'], maxRuns: 10_001 })],
      ['a non-string id', () => s.deleteRunTrees({ runIds: [7 as never], maxRuns: 1 })],
      [
        'an open status',
        () => s.expiredRuns({ statuses: ['running' as never], before: END, limit: 1 }),
      ],
      ['no statuses', () => s.expiredRuns({ statuses: [], before: END, limit: 1 })],
      ['limit 0', () => s.expiredRuns({ statuses: ['completed'], before: END, limit: 0 })],
      [
        'a NaN bound',
        () =>
          s.expiredRuns({
            statuses: ['completed'],
            before: { finishedAt: Number.NaN, runId: '' },
            limit: 1,
          }),
      ],
      ['a __proto__ query', () => s.expiredRuns(JSON.parse('{"__proto__":{"limit":1}}'))],
      ['keepNewest 0', () => s.retentionCutoff({ statuses: ['completed'], keepNewest: 0 })],
      ['keepNewest 1.5', () => s.retentionCutoff({ statuses: ['completed'], keepNewest: 1.5 })],
    ]
    for (const [what, call] of bad) await expectRejection(call, INVALID, what)
    assert.ok((await s.getRun('keep')) !== null, 'nothing was deleted')
    same((await mustGetRun(s, 'keep')).status, 'completed', 'the run is untouched')
  })
}

function ids(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `run-${i}`)
}
