/** After a SQLite crash test: the database file passes `PRAGMA integrity_check` (F6). */
import assert from 'node:assert/strict'
import { DatabaseSync } from 'node:sqlite'

export function assertIntegrityOk(path: string): void {
  const db = new DatabaseSync(path)
  try {
    const rows = db.prepare('PRAGMA integrity_check').all() as Array<{ integrity_check: string }>
    assert.deepEqual(
      rows.map((r) => r.integrity_check),
      ['ok'],
    )
  } finally {
    db.close()
  }
}
