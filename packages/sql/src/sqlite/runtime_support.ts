/**
 * Whether this Node's `node:sqlite` keeps values exactly. Node 22's binding cuts a text value
 * at its first NUL character (measured on 22.23.5: `'a\0b'` comes back as `'a'`); Node 24's
 * does not. A store that silently shortens ids, names or payloads loses data, so the SQLite
 * store refuses to open on a runtime that fails this probe. Asked of the runtime itself, not
 * read from its version number: a backported fix counts, a regression is caught.
 */
import { DatabaseSync } from 'node:sqlite'
import { CairnError } from '@cairn/core'

export const UNSUPPORTED_RUNTIME = 'E_UNSUPPORTED_RUNTIME'

const PROBE = 'nul\u0000inside'
let verdict: boolean | undefined

/** True when a text value with a NUL character round-trips through node:sqlite unchanged. */
export function nodeSqliteKeepsText(): boolean {
  if (verdict !== undefined) return verdict
  const db = new DatabaseSync(':memory:')
  try {
    const row = db.prepare('SELECT ? AS v').get(PROBE) as { v: unknown } | undefined
    verdict = row?.v === PROBE
  } finally {
    db.close()
  }
  return verdict
}

/** Throws E_UNSUPPORTED_RUNTIME when this Node's node:sqlite would change stored values. */
export function assertSqliteRuntime(): void {
  if (nodeSqliteKeepsText()) return
  throw new CairnError(
    UNSUPPORTED_RUNTIME,
    `SqliteStore needs Node.js 24 or later: this Node (${process.version}) has a node:sqlite ` +
      'that cuts text at a NUL character, which would change stored values. Use Node 24, or ' +
      'the Postgres or MySQL store (they support Node 22).',
    { details: { node: process.version } },
  )
}
