/**
 * Child: writes a stream of applyBatch calls of checkpoints for one run, printing
 * `committed <seq>` after each call resolves (the last seq of the batch). The parent kills
 * it with SIGKILL at some point and checks every acknowledged seq survived.
 */
import type { StoreOp } from '@cairn/core/contracts'
import { createSqliteStore } from '@cairn/sql/sqlite'

const [path, runId, synchronous] = process.argv.slice(2) as [string, string, 'full' | 'normal']
const BATCH = 20
const store = createSqliteStore({ path, synchronous })
await store.open()
const fence = { runId, epoch: 1 }
await store.applyBatch(
  [
    {
      type: 'createRun',
      run: { id: runId, workflow: 'crash', version: 'v1', input: '{}', createdAt: Date.now() },
      claim: { owner: 'child', leaseMs: 3_600_000 },
    },
  ],
  Date.now(),
)
console.log('started')
for (let seq = 0; ;) {
  const ops: StoreOp[] = []
  for (let i = 0; i < BATCH; i++, seq++) ops.push(saveOp(seq))
  const results = await store.applyBatch(ops, Date.now())
  if (results.some((result) => result.status !== 'applied'))
    throw new Error(`not applied: ${JSON.stringify(results)}`)
  process.stdout.write(`committed ${seq - 1}\n`)
}

function saveOp(seq: number): StoreOp {
  const now = Date.now()
  return {
    type: 'saveCheckpoint',
    fence,
    checkpoint: {
      runId,
      seq,
      name: `step-${seq}`,
      kind: 'local',
      status: 'completed',
      attempts: 1,
      order: seq + 1,
      input: null,
      output: JSON.stringify({ seq, pad: 'x'.repeat(seq % 300) }),
      error: null,
      wakeAt: null,
      startedAt: now,
      updatedAt: now,
      worker: null,
    },
  }
}
