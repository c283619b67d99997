/**
 * Writes of one transaction that neither read nor change one another's rows, sent together:
 * on Postgres as ONE statement, each write a data-modifying WITH query (executed once, to
 * completion, whatever the main query reads; all of them see the same snapshot, which is why
 * they must be independent), elsewhere one statement each (MySQL has no data-modifying WITH).
 * A write is its text, written against the Params it is given (so MySQL's positional
 * placeholders follow its own text), or null when it has nothing to write — decided before it
 * binds anything.
 */
import type { SqlContext } from './context.ts'
import type { SqlSession } from './driver.ts'
import { Params } from './params.ts'

export type GroupedWrite = (p: Params) => string | null

/** Sends `writes` (in order, on MySQL): one round trip on Postgres, none when all are null. */
export async function writeTogether(
  ctx: SqlContext,
  session: SqlSession,
  writes: readonly GroupedWrite[],
): Promise<void> {
  if (ctx.dialect.name !== 'postgres') {
    for (const write of writes) {
      const p = new Params(ctx.dialect)
      const text = write(p)
      if (text !== null) await session.query(p.statement(text, true))
    }
    return
  }
  const p = new Params(ctx.dialect)
  const texts = writes.flatMap((write) => {
    const text = write(p)
    return text === null ? [] : [text]
  })
  if (texts.length === 0) return
  const text =
    texts.length === 1
      ? (texts[0] as string)
      : `WITH ${texts.map((t, i) => `w${i} AS (${t})`).join(', ')} SELECT 1`
  await session.query(p.statement(text, true))
}
