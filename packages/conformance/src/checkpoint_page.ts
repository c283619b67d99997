/** loadCheckpointPage: a range of a run's checkpoints by position, in position order. */
import type { CheckpointRecord, StateStore } from '@cairn/core/contracts'
import { T0, checkpoint } from './fixtures.ts'
import { expectRejection, same, type Define } from './harness.ts'
import { save, startRun } from './store_calls.ts'

/** A run whose checkpoints sit at positions 0, 1, 2, 4, 5 (3 never recorded). */
async function seed(store: StateStore): Promise<CheckpointRecord[]> {
  const fence = await startRun(store, 'run-1', T0)
  const records = [0, 1, 2, 4, 5].map((seq) => checkpoint('run-1', seq, { startedAt: T0 + seq }))
  // Saved out of order: the page order is by position, not by insertion.
  for (const record of [...records].reverse()) await save(store, fence, record, T0 + 10)
  return records
}

export function checkpointPageTests(define: Define): void {
  define('returns positions >= fromSeq in order, at most limit', async (store) => {
    const records = await seed(store)
    const cases: Array<[number, number, number[]]> = [
      [0, 1000, [0, 1, 2, 4, 5]],
      [0, 2, [0, 1]],
      [2, 2, [2, 4]],
      [3, 2, [4, 5]],
      [5, 1, [5]],
      [6, 10, []],
      [Number.MAX_SAFE_INTEGER, 1, []],
    ]
    for (const [fromSeq, limit, seqs] of cases) {
      same(
        await store.loadCheckpointPage('run-1', { fromSeq, limit }),
        records.filter((record) => seqs.includes(record.seq)),
        `loadCheckpointPage fromSeq ${fromSeq} limit ${limit}`,
      )
    }
  })

  define('an unknown run has no checkpoints', async (store) => {
    await seed(store)
    same(await store.loadCheckpointPage('nope', { fromSeq: 0, limit: 10 }), [], 'unknown run')
  })

  define('a bad fromSeq or limit is refused with E_INVALID_ARGUMENT', async (store) => {
    await seed(store)
    const bad: Array<[string, { fromSeq: number; limit: number }]> = [
      ['fromSeq -1', { fromSeq: -1, limit: 10 }],
      ['fromSeq 1.5', { fromSeq: 1.5, limit: 10 }],
      ['fromSeq 2^53', { fromSeq: 2 ** 53, limit: 10 }],
      ['fromSeq a string', { fromSeq: '0' as unknown as number, limit: 10 }],
      ['limit 0', { fromSeq: 0, limit: 0 }],
      ['limit 1001', { fromSeq: 0, limit: 1001 }],
      ['limit 2.5', { fromSeq: 0, limit: 2.5 }],
      ['limit missing', { fromSeq: 0 } as { fromSeq: number; limit: number }],
    ]
    for (const [what, page] of bad)
      await expectRejection(
        () => store.loadCheckpointPage('run-1', page),
        'E_INVALID_ARGUMENT',
        what,
      )
  })
}
