import { DEFAULT_PRIORITY } from '@cairn/core/store-kit'
import type { CreateRunOp, OpResult } from '@cairn/core/contracts'
import { lineageValues } from '../../shared/lineage_columns.ts'
import { checkpointValues, toRunRecord, type RunRow } from '../row_mapping.ts'
import type { Statements } from '../statements.ts'
import { admissionValues } from '../../shared/admission_columns.ts'
import { admitCreated } from './admission.ts'

/**
 * Insert unless the id exists (I9). Times come from the caller's `run.createdAt`; a claimed
 * create starts `running` at epoch 1 with its lease running from the batch time.
 */
export function createRun(s: Statements, op: CreateRunOp, now: number): OpResult {
  const { run, claim } = op
  const epoch = claim ? 1 : 0
  const { changes } = s.insertRun.run(
    run.id,
    run.workflow,
    run.version,
    claim ? 'running' : 'pending',
    run.input,
    run.createdAt,
    run.createdAt,
    claim ? now + claim.leaseMs : run.createdAt,
    claim ? claim.owner : null,
    epoch,
    epoch,
    run.parent?.runId ?? null,
    run.parent?.seq ?? null,
    run.continuedFrom ?? null,
    ...lineageValues(run),
    ...admissionValues(op),
    run.priority ?? DEFAULT_PRIORITY,
    run.queue ?? null,
  )
  if (Number(changes) > 0) {
    const result: OpResult =
      op.admission === undefined
        ? { status: 'applied', epoch }
        : admitCreated(s, { ...op, admission: op.admission }, { status: 'applied', epoch }, now)
    if (result.status !== 'applied') return result
    // Written only when the run is created: an `exists` result writes nothing more.
    for (const tag of run.tags ?? []) s.insertRunTag.run(tag, run.id)
    for (const cp of op.seed ?? []) s.insertSeedCheckpoint.run(...checkpointValues(cp), run.id)
    return result
  }
  return { status: 'exists', run: toRunRecord(s.selectRun.get(run.id) as unknown as RunRow) }
}
