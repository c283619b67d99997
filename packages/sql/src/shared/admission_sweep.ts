/**
 * promoteQueued on Postgres and MySQL: for each key, one transaction that locks the key's row,
 * counts its runs and promotes its oldest waiters into free slots — what an end naming the key
 * does (admission_writes.ts), for ends that did not name it.
 */
import type { AdmissionKey } from '@cairn/core/contracts'
import { checkPromoteKeys } from '@cairn/core/store-kit'
import type { SqlContext } from './context.ts'
import { AdmissionPass } from './admission_writes.ts'
import { countKeys, idOf, lockKeys } from './admission_statements.ts'

export async function promoteQueued(
  ctx: SqlContext,
  keys: readonly AdmissionKey[],
  now: number,
): Promise<number> {
  checkPromoteKeys(keys)
  let promoted = 0
  for (const key of keys) {
    promoted += await ctx.pool.transaction(async (session) => {
      const row = (await lockKeys(ctx, session, [key])).get(idOf(key))
      if (row === undefined) return 0 // no row: nothing was ever admitted under it
      const pass = new AdmissionPass()
      pass.hold(key, row)
      const counts = await countKeys(ctx, session, [key], new Set())
      const before = counts.get(idOf(key))?.admitted ?? 0
      await pass.promote(ctx, session, key, now, counts)
      return (counts.get(idOf(key))?.admitted ?? 0) - before
    })
  }
  return promoted
}
