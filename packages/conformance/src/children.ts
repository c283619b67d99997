/**
 * Child runs: createRun stores a parent link as given (and returns it with the run), and
 * listRuns lists a run's children, newest first, paged, combinable with the other filters.
 */
import assert from 'node:assert/strict'
import type { StateStore } from '@cairn/core/contracts'
import { T0, createdRecord, newRun } from './fixtures.ts'
import { same, type Define } from './harness.ts'
import { applyOne, expectApplied, finish, ids, list, mustGetRun, startRun } from './store_calls.ts'

async function createChild(store: StateStore, id: string, parent: string, seq: number, at: number) {
  const run = { ...newRun(id, { createdAt: at }), parent: { runId: parent, seq } }
  expectApplied(await applyOne(store, { type: 'createRun', run }, at), `createRun ${id}`)
  return run
}

export function childrenTests(define: Define): void {
  define('createRun stores the parent link; a top-level run has none', async (store) => {
    await startRun(store, 'parent', T0)
    const child = await createChild(store, 'parent/3', 'parent', 3, T0 + 1)
    same(await mustGetRun(store, 'parent/3'), createdRecord(child, T0 + 1), 'the child run')
    const stored = await mustGetRun(store, 'parent/3')
    assert.equal(stored.parentRunId, 'parent')
    assert.equal(stored.parentSeq, 3)
    const top = await mustGetRun(store, 'parent')
    assert.equal(top.parentRunId, null)
    assert.equal(top.parentSeq, null)
    const again = await applyOne(store, { type: 'createRun', run: child }, T0 + 2)
    assert.equal(again.status, 'exists')
    assert.equal(
      again.status === 'exists' ? again.run.parentRunId : null,
      'parent',
      'exists returns the link',
    )
  })

  define(
    'listRuns lists the children of a run, newest first, paged, with other filters',
    async (store) => {
      const fence = await startRun(store, 'p-1', T0)
      await startRun(store, 'p-2', T0)
      for (let i = 0; i < 5; i++) await createChild(store, `p-1/${i}`, 'p-1', i, T0 + 10 + i)
      await createChild(store, 'p-2/0', 'p-2', 0, T0 + 20)
      const first = await list(store, { parentRunId: 'p-1', limit: 3 })
      assert.deepEqual(ids(first.runs), ['p-1/4', 'p-1/3', 'p-1/2'])
      assert.ok(first.nextCursor !== null, 'a second page')
      const second = await list(store, { parentRunId: 'p-1', limit: 3, cursor: first.nextCursor })
      assert.deepEqual(ids(second.runs), ['p-1/1', 'p-1/0'])
      assert.equal(second.nextCursor, null)
      assert.deepEqual(ids((await list(store, { parentRunId: 'p-2' })).runs), ['p-2/0'])
      assert.deepEqual(ids((await list(store, { parentRunId: 'nobody' })).runs), [])
      assert.deepEqual(
        ids((await list(store, { parentRunId: 'p-1', status: 'running' })).runs),
        [],
        'children are pending',
      )
      await finish(store, fence, T0 + 30)
      assert.deepEqual(
        ids((await list(store, { parentRunId: 'p-1', status: ['pending'], limit: 2 })).runs),
        ['p-1/4', 'p-1/3'],
        'a finished parent still lists its children',
      )
    },
  )
}
