/**
 * saveCheckpoint and loadCheckpoints: rows are inserted or advanced while unsettled, and a
 * completed or failed row never changes again (I1).
 */
import { OWNER_B, T0, checkpoint } from './fixtures.ts'
import { same, type Define } from './harness.ts'
import { applyOne, checkpoints, claim, ids, mustGetRun, save, startRun } from './store_calls.ts'

export function checkpointTests(define: Define): void {
  define(
    'saveCheckpoint inserts a row, field for field, and leaves the run row alone',
    async (store) => {
      const fence = await startRun(store, 'run-1', T0)
      const runBefore = await mustGetRun(store, 'run-1')
      const cp = checkpoint('run-1', 0, {
        kind: 'side_effect',
        attempts: 1,
        order: 1,
        startedAt: T0 + 3,
        updatedAt: T0 + 7,
      })
      await save(store, fence, cp, T0 + 10)
      same(await checkpoints(store, 'run-1'), [cp], 'checkpoints after one write')
      same(await mustGetRun(store, 'run-1'), runBefore, 'run row after a checkpoint write')
    },
  )

  define('a retrying row advances attempt by attempt, then completes', async (store) => {
    const fence = await startRun(store, 'run-1', T0)
    const retry = { status: 'retrying' as const, order: null, output: null }
    const first = checkpoint('run-1', 0, {
      ...retry,
      attempts: 1,
      error: '"boom 1"',
      wakeAt: T0 + 100,
    })
    const second = checkpoint('run-1', 0, {
      ...retry,
      attempts: 2,
      error: '"boom 2"',
      wakeAt: T0 + 300,
    })
    const done = checkpoint('run-1', 0, {
      attempts: 3,
      order: 1,
      output: '"ok"',
      updatedAt: T0 + 300,
    })
    await save(store, fence, first, T0 + 1)
    same(await checkpoints(store, 'run-1'), [first], 'after attempt 1')
    await save(store, fence, second, T0 + 101)
    same(await checkpoints(store, 'run-1'), [second], 'after attempt 2')
    await save(store, fence, done, T0 + 301)
    same(await checkpoints(store, 'run-1'), [done], 'after the successful attempt')
  })

  define("a remote step's worker is kept with each row and replaced by the next", async (store) => {
    const fence = await startRun(store, 'run-1', T0)
    const step = { kind: 'step' as const, input: '{"n":1}' }
    const waiting = checkpoint('run-1', 0, {
      ...step,
      status: 'waiting',
      order: null,
      output: null,
    })
    const worker = { id: 'host-1-4711-ab12', startedAt: T0 + 40, finishedAt: T0 + 95 }
    const retrying = checkpoint('run-1', 0, {
      ...step,
      status: 'retrying',
      order: null,
      output: null,
      error: '{"message":"flaky"}',
      worker,
    })
    const other = { id: 'w-2 "quoted" ☃', startedAt: T0 + 200, finishedAt: T0 + 210 }
    const done = checkpoint('run-1', 0, { ...step, attempts: 2, worker: other })
    await save(store, fence, waiting, T0 + 1)
    same(await checkpoints(store, 'run-1'), [waiting], 'a waiting row has no worker')
    await save(store, fence, retrying, T0 + 100)
    same(await checkpoints(store, 'run-1'), [retrying], 'the failed attempt with its worker')
    await save(store, fence, done, T0 + 220)
    same(await checkpoints(store, 'run-1'), [done], 'the completed attempt with its own')
  })

  define('a waiting sleep row fires: waiting → completed', async (store) => {
    const fence = await startRun(store, 'run-1', T0)
    const sleep = { kind: 'sleep' as const, wakeAt: T0 + 60_000 }
    const waiting = checkpoint('run-1', 0, {
      ...sleep,
      status: 'waiting',
      order: null,
      output: null,
    })
    const fired = checkpoint('run-1', 0, {
      ...sleep,
      status: 'completed',
      order: 1,
      output: null,
      updatedAt: T0 + 60_000,
    })
    await save(store, fence, waiting, T0 + 1)
    await save(store, fence, fired, T0 + 60_001)
    same(await checkpoints(store, 'run-1'), [fired], 'the fired sleep')
  })

  define('a completed row wins: conflict returns the stored row unchanged (I1)', async (store) => {
    const fence = await startRun(store, 'run-1', T0)
    const recorded = checkpoint('run-1', 0, { output: '"first"' })
    await save(store, fence, recorded, T0 + 1)
    const attempts = [
      checkpoint('run-1', 0, { output: '"second"', order: 7, updatedAt: T0 + 2 }),
      checkpoint('run-1', 0, { status: 'retrying', order: null, output: null, error: '"late"' }),
      checkpoint('run-1', 0, { status: 'failed', output: null, error: '"late failure"' }),
      recorded,
    ]
    for (const [i, attempt] of attempts.entries()) {
      const result = await applyOne(
        store,
        { type: 'saveCheckpoint', fence, checkpoint: attempt },
        T0 + 3,
      )
      same(result, { status: 'conflict', existing: recorded }, `write ${i} over a completed row`)
    }
    same(await checkpoints(store, 'run-1'), [recorded], 'checkpoints after the conflicts')
  })

  define('a failed row is final too', async (store) => {
    const fence = await startRun(store, 'run-1', T0)
    const failed = checkpoint('run-1', 0, {
      status: 'failed',
      output: null,
      error: '"fatal"',
      attempts: 3,
    })
    await save(store, fence, failed, T0 + 1)
    const result = await applyOne(
      store,
      { type: 'saveCheckpoint', fence, checkpoint: checkpoint('run-1', 0) },
      T0 + 2,
    )
    same(result, { status: 'conflict', existing: failed }, 'write over a failed row')
    same(await checkpoints(store, 'run-1'), [failed], 'checkpoints after the conflict')
  })

  define('loadCheckpoints returns seq order whatever the write order, per run', async (store) => {
    const fenceA = await startRun(store, 'run-a', T0)
    const fenceB = await startRun(store, 'run-b', T0)
    for (const seq of [2, 0, 11, 1, 10]) await save(store, fenceA, checkpoint('run-a', seq), T0 + 1)
    await save(store, fenceB, checkpoint('run-b', 0, { output: '"b"' }), T0 + 1)
    const seqs = (await checkpoints(store, 'run-a')).map((row) => row.seq)
    same(seqs, [0, 1, 2, 10, 11], 'seqs of run-a (numeric order, not text order)')
    same(await checkpoints(store, 'run-b'), [checkpoint('run-b', 0, { output: '"b"' })], 'run-b')
  })

  define(
    'checkpoints outlive leases: a new holder reads and extends the history',
    async (store) => {
      const first = await startRun(store, 'run-1', T0, { leaseMs: 1_000 })
      await save(store, first, checkpoint('run-1', 0), T0 + 1)
      const again = await claim(store, { owner: OWNER_B, now: T0 + 1_000 })
      same(ids(again.claimed), ['run-1'], 'the expired run must be claimed again')
      await save(store, { runId: 'run-1', epoch: 2 }, checkpoint('run-1', 1), T0 + 1_001)
      same(
        await checkpoints(store, 'run-1'),
        [checkpoint('run-1', 0), checkpoint('run-1', 1)],
        'history',
      )
    },
  )
}
