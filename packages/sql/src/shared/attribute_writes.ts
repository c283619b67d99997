/**
 * The search attributes of a batch's applied checkpoints, written in the batch's transaction
 * after its waves (apply_batch.ts). Only saves that applied count (a replayed save reports
 * `conflict`, a fenced one `fenced`: neither writes), merged in batch order, so the last
 * upsert of a (run, name) wins as it would op by op. At most two statements: one DELETE for
 * removals, one multi-row upsert for values; none when no applied save carries attributes, so
 * batches without attributes keep their statement count.
 */
import { toTypedValue } from '@cairn/core/store-kit'
import type { OpResult, SearchAttributeValue, StoreOp } from '@cairn/core/contracts'
import type { SqlContext } from './context.ts'
import type { SqlSession } from './driver.ts'
import { Params } from './params.ts'

type Change = { runId: string; name: string; value: SearchAttributeValue | null }

export function carriesAttributes(op: StoreOp): boolean {
  return op.type === 'saveCheckpoint' && op.searchAttributes !== undefined
}

export async function writeAttributes(
  ctx: SqlContext,
  session: SqlSession,
  ops: readonly StoreOp[],
  results: readonly OpResult[],
): Promise<void> {
  const changes = appliedChanges(ops, results)
  const removals = changes.filter((change) => change.value === null)
  const values = changes.filter((change) => change.value !== null)
  if (removals.length > 0) await session.query(deleteStatement(ctx, removals))
  if (values.length > 0) await session.query(upsertStatement(ctx, values))
}

/** The last change of each (run, name) among the applied saves, in batch order. */
function appliedChanges(ops: readonly StoreOp[], results: readonly OpResult[]): Change[] {
  const last = new Map<string, Change>()
  ops.forEach((op, i) => {
    if (op.type !== 'saveCheckpoint' || op.searchAttributes === undefined) return
    if (results[i]?.status !== 'applied') return
    for (const [name, value] of Object.entries(op.searchAttributes)) {
      const key = JSON.stringify([op.fence.runId, name])
      last.delete(key) // re-inserted: the Map keeps batch order of the final changes
      last.set(key, { runId: op.fence.runId, name, value })
    }
  })
  return [...last.values()]
}

function runKey(ctx: SqlContext, p: Params, runId: string): string {
  return `(SELECT r.key FROM ${ctx.tables.runs} r WHERE r.id = ${p.add(runId)})`
}

function deleteStatement(ctx: SqlContext, removals: readonly Change[]) {
  const p = new Params(ctx.dialect)
  const matches = removals.map(
    ({ runId, name }) => `(run_key = ${runKey(ctx, p, runId)} AND name = ${p.add(name)})`,
  )
  return p.statement(
    `DELETE FROM ${ctx.tables.searchAttributes} WHERE ${matches.join(' OR ')}`,
    true,
  )
}

function upsertStatement(ctx: SqlContext, values: readonly Change[]) {
  const p = new Params(ctx.dialect)
  const rows = values.map(({ runId, name, value }) => {
    const typed = toTypedValue(value as SearchAttributeValue)
    return `(${runKey(ctx, p, runId)}, ${p.add(name)}, ${p.add(typed.type)}, ${p.add(typed.text)}, ${ctx.dialect.double(p, typed.number)})`
  })
  const text = `INSERT INTO ${ctx.tables.searchAttributes} (run_key, name, type, text_value, number_value)
    VALUES ${rows.join(', ')}
    ${ctx.dialect.upsert(['run_key', 'name'], ['type', 'text_value', 'number_value'])}`
  return p.statement(text, true)
}
