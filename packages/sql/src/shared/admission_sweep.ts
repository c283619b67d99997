/**
 * promoteQueued on Postgres and MySQL: for each key, one transaction that locks the key's row,
 * counts its runs and promotes its oldest waiters into free slots (admission_settle.ts
 * promoteKey) — what the settling after an end does, for ends that did not name their key.
 */
import type { AdmissionKey } from '@cairn/core/contracts'
import { checkPromoteKeys } from '@cairn/core/store-kit'
import { promoteKey } from './admission_settle.ts'
import type { WakeContext } from './context.ts'

export async function promoteQueued(
  ctx: WakeContext,
  keys: readonly AdmissionKey[],
  now: number,
): Promise<number> {
  checkPromoteKeys(keys)
  let promoted = 0
  for (const key of keys) promoted += await promoteKey(ctx, key, now)
  return promoted
}
