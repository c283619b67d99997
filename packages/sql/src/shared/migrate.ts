/**
 * The migration runner. The marker table holds one row: the revision applied. Opening a
 * current schema costs one statement, the read of that row. Otherwise one session takes the
 * dialect's migration lock (Postgres: a transaction-scoped advisory lock), creates the schema
 * and marker if missing, reads the revision again under the lock, and applies what is
 * missing: of several processes booting at once against an empty schema, one migrates and
 * the others wait, then find nothing to do.
 */
import { MigrationFailedError } from '@cairn/core'
import type { SqlContext } from './context.ts'
import type { SqlSession, SqlStatement } from './driver.ts'
import type { Migration } from './migration.ts'
import { Params } from './params.ts'

export async function migrate(ctx: SqlContext, migrations: readonly Migration[]): Promise<void> {
  if ((await readRevision(ctx, ctx.pool, migrations.length)) === migrations.length) return
  await ctx.pool.transaction((session) => migrateLocked(ctx, session, migrations))
}

async function migrateLocked(
  ctx: SqlContext,
  session: SqlSession,
  migrations: readonly Migration[],
): Promise<void> {
  const lock = ctx.dialect.migrationLock(ctx.tables.schema)
  await session.query(lock.acquire)
  try {
    await session.query(plain(ctx.dialect.createSchema(ctx.tables.schema)))
    await session.query(plain(markerTable(ctx)))
    const current = await readRevision(ctx, session, migrations.length)
    for (const migration of migrations.slice(current)) await apply(ctx, session, migration)
  } finally {
    // A failed release must not hide why migrating failed; the lock ends with the session anyway.
    if (lock.release !== null) {
      await session.query(lock.release).catch(() => undefined)
    }
  }
}

function markerTable(ctx: SqlContext): string {
  return `CREATE TABLE IF NOT EXISTS ${ctx.tables.marker} (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  revision INTEGER NOT NULL
)`
}

/** The applied revision; 0 when Cairn never touched this schema. */
async function readRevision(ctx: SqlContext, session: SqlSession, latest: number): Promise<number> {
  let rows: unknown[][]
  try {
    rows = (await session.query(plain(`SELECT revision FROM ${ctx.tables.marker} WHERE id = 1`)))
      .rows
  } catch (error) {
    if (ctx.pool.isMissingTable(error)) return 0
    throw error
  }
  const revision = Number(rows[0]?.[0] ?? 0)
  if (revision > latest) {
    throw new MigrationFailedError(
      `${ctx.dialect.name} store: schema ${ctx.tables.schema} is at revision ${revision}, newer than this version of Cairn supports (${latest})`,
      { details: { schema: ctx.tables.schema, revision, latestRevision: latest } },
    )
  }
  return revision
}

/** The migration and its revision mark, so a failure in a later one leaves a true marker. */
async function apply(ctx: SqlContext, session: SqlSession, migration: Migration): Promise<void> {
  try {
    for (const statement of migration.statements(ctx.tables)) await session.query(plain(statement))
  } catch (error) {
    throw new MigrationFailedError(
      `${ctx.dialect.name} store: migration ${migration.revision} (${migration.name}) failed: ${(error as Error).message}`,
      { cause: error, details: { revision: migration.revision, name: migration.name } },
    )
  }
  const p = new Params(ctx.dialect)
  const revision = p.add(migration.revision)
  await session.query(
    p.statement(
      migration.revision === 1
        ? `INSERT INTO ${ctx.tables.marker} (id, revision) VALUES (1, ${revision})`
        : `UPDATE ${ctx.tables.marker} SET revision = ${revision} WHERE id = 1`,
    ),
  )
}

/** A statement without bound values (DDL, fixed reads). */
function plain(text: string): SqlStatement {
  return { text, values: [] }
}
