/**
 * grantQueueSlots and queueStats on Postgres and MySQL. A grant call runs each queue's pass
 * in a transaction of its own under the queue row's lock — what a write naming the queue does
 * (queue_writes.ts), for slots freed by writes that did not name it, for a raised concurrency
 * and for a queue whose rate allows a grant again.
 */
import type { QueueGrantReport, QueueStats, QueueThrottle, SlotGrant } from '@cairn/core/contracts'
import { checkQueueNames } from '@cairn/core/store-kit'
import type { BatchContext } from './apply_batch.ts'
import type { SqlContext } from './context.ts'
import type { Params } from './params.ts'
import { pickGrants, writeGrants } from './queue_grants.ts'
import { readStats } from './queue_line.ts'
import { lockQueues, storeQueues } from './queue_statements.ts'

export async function grantQueueSlots(
  ctx: BatchContext,
  names: readonly string[],
  now: number,
): Promise<QueueGrantReport> {
  checkQueueNames(names, 'grantQueueSlots')
  const grants: SlotGrant[] = []
  const throttled: QueueThrottle[] = []
  for (const name of new Set(names)) {
    const made = await ctx.pool.transaction(async (session) => {
      const row = (await lockQueues(ctx, session, [name])).get(name)
      if (row === undefined) return null // never enqueued into: nothing to grant
      const before = row.grants
      const pick = await pickGrants(ctx, session, row, now)
      const store = (p: Params) => (row.grants === before ? null : storeQueues(ctx, p, [row]))
      const [outcome] = await writeGrants(ctx, session, [pick], now, () => false, [store])
      if (outcome?.woke === true && ctx.wakeStatement !== undefined)
        await session.query(ctx.wakeStatement(now))
      return outcome
    })
    grants.push(...(made?.grants ?? []))
    throttled.push(...(made?.throttled ?? []))
  }
  return { grants, throttled }
}

export async function queueStats(
  ctx: SqlContext,
  names: readonly string[],
  now: number,
): Promise<QueueStats[]> {
  checkQueueNames(names, 'queueStats')
  if (names.length === 0) return []
  return readStats(ctx, ctx.pool, names, now)
}
