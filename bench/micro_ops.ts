/**
 * Store ops for the store micro benchmarks (postgres_store_micro.ts, mysql_store_micro.ts):
 * the checkpoint saves and run creates an engine batch is made of, over ids from `runId`.
 */
import type { StoreOp } from '@cairn/core/contracts'

export const BODY = '{"i":1,"ok":true,"v":1}'

export function microOps(runId: (i: number) => string) {
  const save = (
    run: number,
    seq: number,
    status: 'completed' | 'retrying' = 'completed',
  ): StoreOp => {
    const now = Date.now()
    const id = runId(run)
    return {
      type: 'saveCheckpoint',
      fence: { runId: id, epoch: 1 },
      checkpoint: {
        runId: id,
        seq,
        name: `step-${seq}`,
        kind: 'local',
        status,
        attempts: 1,
        order: status === 'completed' ? seq + 1 : null,
        input: null,
        output: status === 'completed' ? BODY : null,
        error: null,
        wakeAt: status === 'completed' ? null : now + 1000,
        startedAt: now,
        updatedAt: now,
        worker: null,
      },
    }
  }
  const create = (run: number): StoreOp => ({
    type: 'createRun',
    run: { id: runId(run), workflow: 'bench', version: 'v1', input: BODY, createdAt: Date.now() },
    claim: { owner: 'bench', leaseMs: 3_600_000 },
  })
  return { save, create }
}
