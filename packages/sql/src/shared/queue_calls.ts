/**
 * grantQueueSlots and queueStats on Postgres and MySQL. A grant call runs each queue's pass
 * in a transaction of its own under the queue row's lock — what a write naming the queue does
 * (queue_writes.ts), for slots freed by writes that did not name it and for a raised
 * concurrency.
 */
import type { QueueStats } from '@cairn/core/contracts'
import { checkQueueNames } from '@cairn/core/store-kit'
import type { BatchContext } from './apply_batch.ts'
import type { SqlContext } from './context.ts'
import { grantPass } from './queue_grants.ts'
import { readStats } from './queue_line.ts'
import { lockQueues, storeQueue } from './queue_statements.ts'

export async function grantQueueSlots(
  ctx: BatchContext,
  names: readonly string[],
  now: number,
): Promise<number> {
  checkQueueNames(names, 'grantQueueSlots')
  let granted = 0
  for (const name of new Set(names)) {
    granted += await ctx.pool.transaction(async (session) => {
      const row = (await lockQueues(ctx, session, [name])).get(name)
      if (row === undefined) return 0 // never enqueued into: nothing to grant
      const { grants, woke } = await grantPass(ctx, session, row, now)
      if (grants.length > 0) await storeQueue(ctx, session, row)
      if (woke && ctx.wakeStatement !== undefined) await session.query(ctx.wakeStatement(now))
      return grants.length
    })
  }
  return granted
}

export async function queueStats(ctx: SqlContext, names: readonly string[]): Promise<QueueStats[]> {
  checkQueueNames(names, 'queueStats')
  if (names.length === 0) return []
  return readStats(ctx, ctx.pool, names)
}
