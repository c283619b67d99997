/**
 * How a batch's singleton admission is written (apply_batch.ts): in the wave's own statement
 * when the writer can and the batch is simple enough (inWaveAdmission), else by the
 * transactional pass (admission_writes.ts); and which keys are settled once it commits
 * (admission_settle.ts).
 */
import type { Admission, OpResult, StoreOp } from '@cairn/core/contracts'
import { releasedKey } from './admission_writes.ts'
import { idOf, lockOrder, type Key } from './admission_statements.ts'
import type { Wave } from './wave_plan.ts'
import type { AdmitKey, EndKeys, WaveAdmission } from './wave_writer.ts'

/**
 * The batch's creates admitted in its one wave's statement, or null when the pass must decide
 * them: the batch is otherwise a single autocommitted statement (`single`), no create inherits
 * a slot (continueAsNew), no end names a key (the pass orders a batch's ends and creates of one
 * key), and the creates of each key give one limit (a changed limit is stored by the pass).
 * The statement writes the whole wave or nothing (WaveAdmission.declined).
 */
export function inWaveAdmission(
  ops: readonly StoreOp[],
  waves: readonly Wave[],
  single: boolean,
): WaveAdmission | null {
  if (!single || waves.length !== 1) return null
  const keys = new Map<string, { key: Admission; creates: number }>()
  for (const op of ops) {
    if (releasedKey(op) !== null) return null
    if (op.type !== 'createRun' || op.admission === undefined) continue
    const { admission } = op
    if (admission.inheritFrom !== undefined) return null
    const seen = keys.get(idOf(admission))
    if (seen !== undefined && seen.key.limit !== admission.limit) return null
    keys.set(idOf(admission), { key: admission, creates: (seen?.creates ?? 0) + 1 })
  }
  const admits: AdmitKey[] = lockOrder(
    [...keys.values()].map(({ key, creates }) => ({
      scope: key.scope,
      key: key.key,
      limit: key.limit,
      creates,
    })),
  )
  return { keys: admits, declined: false }
}

/** The keys the wave's ends name, in lock order (undefined: none). */
export function waveEndKeys(wave: Wave, unsettled: Key[]): EndKeys | undefined {
  const keys = new Map<string, Key>()
  for (const { op } of wave) {
    const key = releasedKey(op)
    if (key !== null) keys.set(idOf(key), key)
  }
  return keys.size === 0 ? undefined : { keys: lockOrder(keys.values()), unsettled }
}

/** The keys the ends that applied name. */
export function appliedEndKeys(ops: readonly StoreOp[], results: readonly OpResult[]): Key[] {
  const keys = new Map<string, Key>()
  ops.forEach((op, i) => {
    const key = releasedKey(op)
    if (key !== null && results[i]?.status === 'applied') keys.set(idOf(key), key)
  })
  return [...keys.values()]
}

/** Each end that applied on a key whose waiters were promoted says so (`promoted`). */
export function tellPromoted(
  ops: readonly StoreOp[],
  results: OpResult[],
  promoted: ReadonlySet<string>,
): void {
  if (promoted.size === 0) return
  ops.forEach((op, i) => {
    const key = releasedKey(op)
    const result = results[i]
    if (key !== null && result?.status === 'applied' && promoted.has(idOf(key)))
      results[i] = { ...result, promoted: true }
  })
}
