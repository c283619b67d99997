/**
 * An "application" for the transactional step tests: a Knex instance on one dialect, Cairn's
 * tables and an app table (`tx_items`) in one place of their own (a file, a schema, a
 * database), and the workflow under test, whose transactional step inserts one item. The place
 * is described by a plain `AppSpec`, so a child process can open the same one.
 */
import { DatabaseSync } from 'node:sqlite'
import { Engine, silentLogger, type EngineOptions } from '@cairn/core'
import { createKnexStore, type KnexStore, type KnexStoreOptions } from '@cairn/sql/knex'
import type { Knex } from 'knex'
import { mysqlKnex, pgKnex, sqliteKnex } from './knex.ts'
import { dropDatabase, randomDatabase } from './mysql.ts'
import { dropSchema, randomSchema } from './postgres.ts'
import { makeTempDir } from './temp_dir.ts'

export type Dialect = 'sqlite' | 'postgres' | 'mysql'

export interface AppSpec {
  dialect: Dialect
  /** SQLite: the database file. Postgres: the schema. MySQL: the database. */
  place: string
}

/** A fresh place for `dialect`, and how to remove it. */
export async function freshApp(
  dialect: Dialect,
): Promise<{ spec: AppSpec; drop(): Promise<void> }> {
  if (dialect === 'sqlite') {
    const dir = await makeTempDir('cairn-tx-')
    return { spec: { dialect, place: dir.file('app.db') }, drop: () => dir.remove() }
  }
  if (dialect === 'postgres') {
    const schema = randomSchema()
    return { spec: { dialect, place: schema }, drop: () => dropSchema(schema) }
  }
  const database = randomDatabase()
  return { spec: { dialect, place: database }, drop: () => dropDatabase(database) }
}

export function openKnex(spec: AppSpec): Knex {
  if (spec.dialect === 'sqlite') return sqliteKnex(spec.place)
  return spec.dialect === 'postgres' ? pgKnex(4) : mysqlKnex(4)
}

export function storeOptions(spec: AppSpec): KnexStoreOptions {
  if (spec.dialect === 'sqlite') return {}
  return spec.dialect === 'postgres' ? { schema: spec.place } : { database: spec.place }
}

/** The app table, qualified like Cairn's (Knex quotes `schema.table` part by part). */
export function itemsTable(spec: AppSpec): string {
  return spec.dialect === 'sqlite' ? 'tx_items' : `${spec.place}.tx_items`
}

/** Opens the store (creating the place and Cairn's tables), then the app table. */
export async function openStore(
  knex: Knex,
  spec: AppSpec,
  extra: KnexStoreOptions = {},
): Promise<KnexStore> {
  const store = createKnexStore(knex, { ...storeOptions(spec), ...extra })
  await store.open()
  const schema = () =>
    spec.dialect === 'sqlite' ? knex.schema : knex.schema.withSchema(spec.place)
  if (!(await schema().hasTable('tx_items'))) {
    await schema().createTable('tx_items', (t) => {
      t.string('run_id', 64)
      t.string('note', 64)
      t.integer('call')
    })
  }
  return store
}

export interface ItemRow {
  run_id: string
  note: string
  call: number
}

export async function items(knex: Knex, spec: AppSpec): Promise<ItemRow[]> {
  const rows = await knex(itemsTable(spec)).select('run_id', 'note', 'call').orderBy('call')
  return rows.map((row: ItemRow) => ({ ...row, call: Number(row.call) }))
}

/** Called inside the step's transaction; the test steers it (throw, move the epoch, …). */
export interface StepHooks {
  beforeInsert?(call: number, runId: string): Promise<void> | void
  afterInsert?(call: number, runId: string): Promise<void> | void
}

export interface InsertInput {
  note: string
  /** Wait for a signal `go` after the step: the run suspends, and resumes by replay. */
  waitForSignal?: boolean
}

/**
 * Registers `insert-item`: one transactional step inserting an item with the count of calls of
 * its function in this process (`calls.count`, shared with the test).
 */
export function registerInsertItem(
  engine: Engine,
  spec: AppSpec,
  calls: { count: number },
  hooks: StepHooks = {},
): void {
  engine.register('insert-item', 1, async (ctx, input: InsertInput) => {
    const step = await ctx.transaction(
      'insert',
      async (trx: Knex.Transaction, step) => {
        const call = ++calls.count
        await hooks.beforeInsert?.(call, ctx.runId)
        await trx(itemsTable(spec)).insert({ run_id: ctx.runId, note: input.note, call })
        await hooks.afterInsert?.(call, ctx.runId)
        return { call, attempt: step.attempt }
      },
      { retries: 3, backoff: { type: 'fixed', delay: 10 } },
    )
    if (input.waitForSignal === true) await ctx.waitForSignal('go')
    return step
  })
}

export function newEngine(store: KnexStore, options: Partial<EngineOptions> = {}): Engine {
  return new Engine({ store, logger: silentLogger, instanceId: 'tx-engine', ...options })
}

/**
 * Move the run's lease epoch on, as another engine's claim would (P11: this holder is stale).
 * On a connection of its own: SQLite's one Knex connection is the step's, busy in its
 * transaction (which has not written yet, so this write does not wait for it).
 */
export async function bumpEpoch(knex: Knex, spec: AppSpec, runId: string): Promise<void> {
  const sql = 'UPDATE cairn_runs SET lease_epoch = lease_epoch + 1 WHERE id = ?'
  if (spec.dialect === 'sqlite') {
    const db = new DatabaseSync(spec.place)
    try {
      db.prepare(sql).run(runId)
    } finally {
      db.close()
    }
    return
  }
  const runs = `${spec.place}.cairn_runs`
  await knex(runs)
    .where('id', runId)
    .update({ lease_epoch: knex.raw('lease_epoch + 1') })
}

/** Polls `check` (no timing assertion: gives up only after a generous bound). */
export async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let tries = 0; tries < 1_000; tries++) {
    if (await check()) return
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  throw new Error(`never happened: ${what}`)
}
