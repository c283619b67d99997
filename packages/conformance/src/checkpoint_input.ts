/**
 * CheckpointRecord.input: a registered step's encoded input, stored with its checkpoint on
 * every write that applies (insert, advance, seed) and read back by every checkpoint read.
 */
import type { CheckpointRecord, StoreOp } from '@cairn/core/contracts'
import { T0, checkpoint, newRun } from './fixtures.ts'
import { same, type Define } from './harness.ts'
import { apply, applyOne, checkpoints, save, startRun } from './store_calls.ts'

/** Codec text with what text columns get wrong: astral characters, a NUL, quotes, size. */
const INPUT = JSON.stringify({ sku: 'b\u{1F680}\u0000"k', note: 'é'.repeat(5_000) })

function stepRecord(runId: string, seq: number, changes: Partial<CheckpointRecord> = {}) {
  return checkpoint(runId, seq, { kind: 'step', name: 'charge', input: INPUT, ...changes })
}

export function checkpointInputTests(define: Define): void {
  define('a checkpoint keeps its input, text or null, through every read', async (store) => {
    const fence = await startRun(store, 'run-1', T0)
    const withInput = stepRecord('run-1', 0)
    const without = checkpoint('run-1', 1, { input: null })
    await save(store, fence, withInput, T0 + 1)
    await save(store, fence, without, T0 + 2)
    same(await checkpoints(store, 'run-1'), [withInput, without], 'loadCheckpoints')
    same(
      await store.loadCheckpointPage('run-1', { fromSeq: 0, limit: 10 }),
      [withInput, without],
      'loadCheckpointPage',
    )
  })

  define('one batch of saves with and without inputs stores each its own', async (store) => {
    const fence = await startRun(store, 'run-1', T0)
    const rows = [
      checkpoint('run-1', 0, { input: null }),
      stepRecord('run-1', 1),
      stepRecord('run-1', 2, { input: '"other"' }),
      checkpoint('run-1', 3, { input: null }),
    ]
    const ops: StoreOp[] = rows.map((cp) => ({ type: 'saveCheckpoint', fence, checkpoint: cp }))
    same(
      (await apply(store, ops, T0 + 1)).map((r) => r.status),
      ['applied', 'applied', 'applied', 'applied'],
      'the batch',
    )
    same(await checkpoints(store, 'run-1'), rows, 'checkpoints')
  })

  define(
    'a retrying row stores its input, and the completing save stores its own',
    async (store) => {
      const fence = await startRun(store, 'run-1', T0)
      const retrying = stepRecord('run-1', 0, {
        status: 'retrying',
        order: null,
        output: null,
        error: '"boom"',
        wakeAt: T0 + 100,
      })
      // Another input than the retrying row's: a store keeping the old text would show here.
      const done = stepRecord('run-1', 0, { attempts: 2, updatedAt: T0 + 100, input: '"second"' })
      await save(store, fence, retrying, T0 + 1)
      same(await checkpoints(store, 'run-1'), [retrying], 'the retrying row')
      await save(store, fence, done, T0 + 101)
      same(await checkpoints(store, 'run-1'), [done], 'the completed row')
    },
  )

  // A row written before inputs were stored (null) completed by a step that has one.
  define('an advancing save writes its own input over the row', async (store) => {
    const fence = await startRun(store, 'run-1', T0)
    const old = stepRecord('run-1', 0, { status: 'retrying', order: null, input: null })
    const done = stepRecord('run-1', 0, { attempts: 2 })
    await save(store, fence, old, T0 + 1)
    await save(store, fence, done, T0 + 2)
    same(await checkpoints(store, 'run-1'), [done], 'the completed row')
  })

  // Every field of an applying save is written: no input clears the one stored (no COALESCE).
  define('an advancing save without an input leaves the row with none', async (store) => {
    const fence = await startRun(store, 'run-1', T0)
    const retrying = stepRecord('run-1', 0, { status: 'retrying', order: null, output: null })
    const done = stepRecord('run-1', 0, { attempts: 2, input: null })
    await save(store, fence, retrying, T0 + 1)
    await save(store, fence, done, T0 + 2)
    same(await checkpoints(store, 'run-1'), [done], 'the completed row')
  })

  define('a conflicting save returns the stored input', async (store) => {
    const fence = await startRun(store, 'run-1', T0)
    const recorded = stepRecord('run-1', 0)
    await save(store, fence, recorded, T0 + 1)
    const replay = stepRecord('run-1', 0, { input: '"late"', output: '"late"' })
    same(
      await applyOne(store, { type: 'saveCheckpoint', fence, checkpoint: replay }, T0 + 2),
      { status: 'conflict', existing: recorded },
      'the conflict',
    )
  })

  define('seed checkpoints keep their inputs', async (store) => {
    const seed = [stepRecord('fork', 0), checkpoint('fork', 1, { input: null })]
    const create: StoreOp = { type: 'createRun', run: newRun('fork', { createdAt: T0 }), seed }
    same(await applyOne(store, create, T0), { status: 'applied', epoch: 0 }, 'create')
    same(await checkpoints(store, 'fork'), seed, 'checkpoints')
  })
}
