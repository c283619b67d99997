/** loadSearchAttributes: one statement for all the ids, through the attribute primary key. */
import { checkRunIdList, fromTypedValue } from '@cairn/core/store-kit'
import type { SearchAttributes } from '@cairn/core/contracts'
import type { SqlContext } from './context.ts'
import { Params } from './params.ts'

export async function loadSearchAttributes(
  ctx: SqlContext,
  runIds: readonly string[],
): Promise<Map<string, SearchAttributes>> {
  checkRunIdList(runIds)
  const found = new Map<string, SearchAttributes>()
  if (runIds.length === 0) return found
  const p = new Params(ctx.dialect)
  const text = `SELECT r.id, a.name, a.type, a.text_value, a.number_value
    FROM ${ctx.tables.runs} r JOIN ${ctx.tables.searchAttributes} a ON a.run_key = r.key
    WHERE ${ctx.dialect.inList(p, 'r.id', runIds, 'text')}`
  const { rows } = await ctx.pool.query(p.statement(text))
  for (const [runId, name, type, textValue, numberValue] of rows) {
    const attributes = found.get(runId as string) ?? {}
    attributes[name as string] = fromTypedValue(
      type as string,
      textValue as string | null,
      numberValue === null ? null : Number(numberValue),
    )
    found.set(runId as string, attributes)
  }
  return found
}
