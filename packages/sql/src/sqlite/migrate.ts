/**
 * Schema migrations. `cairn_schema` holds one row: the revision applied. Opening a current
 * database costs one read of it; otherwise the pending migrations and the new revision are
 * written in one BEGIN IMMEDIATE transaction, re-reading the revision under the write lock,
 * so several processes opening a fresh file at once each either migrate it or find it done.
 */
import type { SqliteDatabase } from './database.ts'
import { MigrationFailedError } from '@cairn/core'
import { latestRevision, migrations, type Migration } from './migrations/index.ts'
import { inImmediateTransaction, type TransactionStatements } from './transaction.ts'
import { isBusy } from './sqlite_errors.ts'

export const MARKER_TABLE = `CREATE TABLE IF NOT EXISTS cairn_schema (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  revision INTEGER NOT NULL
) STRICT`

/** Brings the schema to the latest revision. Throws SQLITE_BUSY as is (the caller retries). */
export function migrate(db: SqliteDatabase, tx: TransactionStatements): void {
  if (readRevision(db) === latestRevision) return
  inImmediateTransaction(db, tx, () => {
    db.exec(MARKER_TABLE)
    const current = readRevision(db)
    for (const migration of migrations.slice(current)) apply(db, migration)
    if (current < latestRevision) writeRevision(db, latestRevision)
  })
}

/** The applied revision; 0 for a database Cairn never touched. */
function readRevision(db: SqliteDatabase): number {
  let row: { revision: number } | undefined
  try {
    row = db.prepare('SELECT revision FROM cairn_schema WHERE id = 1').get() as typeof row
  } catch (err) {
    if (isMissingMarker(err)) return 0
    throw err
  }
  const revision = row?.revision ?? 0
  if (revision > latestRevision) {
    throw new MigrationFailedError(
      `sqlite store: database schema revision ${revision} is newer than this version of Cairn supports (${latestRevision})`,
      { details: { revision, latestRevision } },
    )
  }
  return revision
}

function isMissingMarker(err: unknown): boolean {
  return err instanceof Error && !isBusy(err) && /no such table: cairn_schema/.test(err.message)
}

function apply(db: SqliteDatabase, migration: Migration): void {
  try {
    db.exec(migration.sql)
  } catch (err) {
    if (isBusy(err)) throw err
    throw new MigrationFailedError(
      `sqlite store: migration ${migration.revision} (${migration.name}) failed: ${(err as Error).message}`,
      { cause: err, details: { revision: migration.revision, name: migration.name } },
    )
  }
}

function writeRevision(db: SqliteDatabase, revision: number): void {
  db.prepare(
    'INSERT INTO cairn_schema (id, revision) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET revision = excluded.revision',
  ).run(revision)
}
