/**
 * deleteEventBatch on Postgres and MySQL: the accumulator and its payloads. Postgres deletes
 * both in ONE statement (the payloads' DELETE a WITH query), reading the payloads as of the
 * statement's start: fine, as an accumulator is deleted after its claim, which closed it to
 * adds (an add that joined it had committed before the claim could lock it). MySQL in one
 * transaction, the accumulator first (a concurrent add still holding it is waited for).
 */
import { checkEventBatchRef } from '@cairn/core/store-kit'
import type { SqlContext } from './context.ts'
import { Params } from './params.ts'

export async function deleteEventBatch(
  ctx: SqlContext,
  workflow: string,
  key: string,
  id: string,
): Promise<boolean> {
  checkEventBatchRef(workflow, key, id)
  const { eventBatches, eventBatchItems } = ctx.tables
  const of = (p: Params, idColumn: string) =>
    `workflow = ${p.add(workflow)} AND batch_key = ${p.add(key)} AND ${idColumn} = ${p.add(id)}`
  if (ctx.dialect.name === 'postgres') {
    const p = new Params(ctx.dialect)
    const text = `WITH items AS (DELETE FROM ${eventBatchItems} WHERE ${of(p, 'batch_id')})
      DELETE FROM ${eventBatches} WHERE ${of(p, 'id')}`
    return (await ctx.pool.query(p.statement(text, true))).affected > 0
  }
  return ctx.pool.transaction(async (session) => {
    const a = new Params(ctx.dialect)
    const { affected } = await session.query(
      a.statement(`DELETE FROM ${eventBatches} WHERE ${of(a, 'id')}`, true),
    )
    const i = new Params(ctx.dialect)
    await session.query(
      i.statement(`DELETE FROM ${eventBatchItems} WHERE ${of(i, 'batch_id')}`, true),
    )
    return affected > 0
  })
}
