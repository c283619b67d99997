/**
 * The db transport's tables on SQLite (node:sqlite), for engines and workers on one host. A claim
 * is one BEGIN IMMEDIATE transaction (the database's write lock: two claims never take one row).
 * SQLite has no NOTIFY: idle workers and engines poll (pollIntervalMs). SQLite's busy handler
 * sleeps synchronously, so it gets a short slice and the rest of a wait for another process's
 * lock happens here, asynchronously.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { DatabaseSync, type SQLInputValue } from 'node:sqlite'
import { StoreFailureError } from '@cairn/core/errors'
import type {
  ClaimedReport,
  ClaimedTask,
  ClaimQuery,
  StepDepthRow,
  CompletedTask,
  TaskRow,
  TransportTables,
} from './tables.ts'
import { depthSql, toDepthRows } from './depth_sql.ts'
import { repeatedPerStep } from './repeat_counts.ts'

const NOW = "CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER)"
const BUSY_SLICE_MS = 50
/** How long a statement waits for another process's write lock before it fails. */
const BUSY_BOUND_MS = 10_000

/** Capabilities cover a task when none of its requirements is missing from them. */
const COVERED = `NOT EXISTS (SELECT 1 FROM json_each(requires) AS r
  WHERE r.value NOT IN (SELECT value FROM json_each(?)))`

export class SqliteTables implements TransportTables {
  readonly dialect = 'sqlite'
  readonly #db: DatabaseSync
  readonly #path: string

  constructor(path: string) {
    this.#path = path
    this.#db = new DatabaseSync(path)
    this.#db.exec(`PRAGMA busy_timeout = ${BUSY_SLICE_MS}`)
  }

  async ensureSchema(): Promise<void> {
    await this.#write('create the transport tables', () => {
      const mode = this.#db.prepare('PRAGMA journal_mode = WAL').get() as { journal_mode: string }
      if (mode.journal_mode !== 'wal' && this.#path !== ':memory:')
        throw new StoreFailureError(`db transport: could not enable WAL on ${this.#path}`)
      this.#db.exec(`
        CREATE TABLE IF NOT EXISTS cairn_tasks (
          id INTEGER PRIMARY KEY,
          task_key TEXT NOT NULL UNIQUE,
          step_key TEXT NOT NULL,
          requires TEXT NOT NULL,
          body TEXT NOT NULL,
          available_at INTEGER NOT NULL,
          holder TEXT,
          held_until INTEGER,
          deliveries INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX IF NOT EXISTS cairn_tasks_due ON cairn_tasks (step_key, available_at, id);
        CREATE TABLE IF NOT EXISTS cairn_task_reports (
          id INTEGER PRIMARY KEY,
          body TEXT NOT NULL,
          available_at INTEGER NOT NULL,
          holder TEXT,
          held_until INTEGER
        );
        CREATE INDEX IF NOT EXISTS cairn_task_reports_holder ON cairn_task_reports (holder);
        CREATE TABLE IF NOT EXISTS cairn_workers (
          worker_id TEXT PRIMARY KEY,
          body TEXT NOT NULL,
          at INTEGER NOT NULL
        );
        CREATE TABLE IF NOT EXISTS cairn_task_counters (
          step_key TEXT PRIMARY KEY,
          redelivered INTEGER NOT NULL DEFAULT 0
        );`)
    })
  }

  async insertTasks(rows: readonly TaskRow[]): Promise<void> {
    const insert = this.#db.prepare(
      `INSERT INTO cairn_tasks (task_key, step_key, requires, body, available_at)
       VALUES (?, ?, ?, ?, ${NOW} + ?) ON CONFLICT (task_key) DO NOTHING`,
    )
    await this.#transaction('publish tasks', () => {
      for (const row of rows)
        insert.run(row.taskKey, row.stepKey, JSON.stringify(row.requires), row.body, row.delayMs)
    })
  }

  async claimTasks(query: ClaimQuery): Promise<ClaimedTask[]> {
    const steps = JSON.stringify(query.stepKeys)
    return this.#transaction('claim tasks', () => {
      const rows = this.#db
        .prepare(
          `SELECT task_key, body, step_key, deliveries FROM cairn_tasks
           WHERE step_key IN (SELECT value FROM json_each(?)) AND available_at <= ${NOW}
             AND (holder IS NULL OR held_until < ${NOW}) AND ${COVERED}
           ORDER BY available_at, id LIMIT ?`,
        )
        .all(steps, JSON.stringify(query.capabilities), query.max) as {
        task_key: string
        body: string
        step_key: string
        deliveries: number
      }[]
      const hold = this.#db.prepare(
        `UPDATE cairn_tasks SET holder = ?, held_until = ${NOW} + ?, deliveries = deliveries + 1
         WHERE task_key = ?`,
      )
      for (const row of rows) hold.run(query.holder, query.holdMs, row.task_key)
      const count = this.#db.prepare(
        `INSERT INTO cairn_task_counters (step_key, redelivered) VALUES (?, ?)
         ON CONFLICT (step_key) DO UPDATE SET redelivered = redelivered + excluded.redelivered`,
      )
      const repeats = repeatedPerStep(rows.map((row) => [row.step_key, row.deliveries] as const))
      for (const [stepKey, n] of repeats) count.run(stepKey, n)
      return rows.map((row) => ({ taskKey: row.task_key, body: row.body }))
    })
  }

  async nextDueInMs(stepKeys: readonly string[]): Promise<number | null> {
    const row = await this.#read('find the next due task', () =>
      this.#db
        .prepare(
          `SELECT MIN(available_at) - ${NOW} AS due FROM cairn_tasks
           WHERE step_key IN (SELECT value FROM json_each(?)) AND holder IS NULL`,
        )
        .get(JSON.stringify(stepKeys)),
    )
    const due = (row as { due: number | null } | undefined)?.due
    return due === null || due === undefined ? null : Math.max(0, Number(due))
  }

  async extendTask(taskKey: string, holder: string, holdMs: number): Promise<boolean> {
    return this.#write('extend a hold', () => {
      const result = this.#db
        .prepare(
          `UPDATE cairn_tasks SET held_until = ${NOW} + ?
           WHERE task_key = ? AND holder = ? AND held_until >= ${NOW}`,
        )
        .run(holdMs, taskKey, holder)
      return Number(result.changes) === 1
    })
  }

  async completeTasks(items: readonly CompletedTask[]): Promise<void> {
    const send = this.#db.prepare(
      'INSERT INTO cairn_task_reports (body, available_at) VALUES (?, 0)',
    )
    const done = this.#db.prepare('DELETE FROM cairn_tasks WHERE task_key = ? AND holder = ?')
    await this.#transaction('complete tasks', () => {
      for (const item of items) {
        send.run(item.report)
        done.run(item.taskKey, item.holder)
      }
    })
  }

  async handBack(holds: readonly { taskKey: string; holder: string }[]): Promise<void> {
    const release = this.#db.prepare(
      'UPDATE cairn_tasks SET holder = NULL, held_until = NULL WHERE task_key = ? AND holder = ?',
    )
    await this.#transaction('hand tasks back', () => {
      for (const hold of holds) release.run(hold.taskKey, hold.holder)
    })
  }

  async depth(): Promise<StepDepthRow[]> {
    const statement = this.#db.prepare(
      depthSql({ tasks: 'cairn_tasks', counters: 'cairn_task_counters' }, NOW),
    )
    statement.setReturnArrays(true)
    return toDepthRows(statement.all() as unknown as unknown[][])
  }

  async withdrawTask(taskKey: string): Promise<'withdrawn' | 'taken' | 'unknown'> {
    return this.#write('withdraw a task', () => {
      const gone = this.#db
        .prepare('DELETE FROM cairn_tasks WHERE task_key = ? AND deliveries = 0')
        .run(taskKey)
      if (Number(gone.changes) === 1) return 'withdrawn'
      const row = this.#db.prepare('SELECT 1 FROM cairn_tasks WHERE task_key = ?').get(taskKey)
      return row === undefined ? 'unknown' : 'taken'
    })
  }

  async deleteTask(taskKey: string): Promise<void> {
    await this.#run('delete a task', 'DELETE FROM cairn_tasks WHERE task_key = ?', taskKey)
  }

  async insertReports(bodies: readonly string[]): Promise<void> {
    const insert = this.#db.prepare(
      'INSERT INTO cairn_task_reports (body, available_at) VALUES (?, 0)',
    )
    await this.#transaction('send reports', () => {
      for (const body of bodies) insert.run(body)
    })
  }

  async claimReports(holder: string, max: number, holdMs: number): Promise<ClaimedReport[]> {
    return this.#transaction('claim reports', () => {
      const rows = this.#db
        .prepare(
          `SELECT id, body FROM cairn_task_reports
           WHERE available_at <= ${NOW} AND (holder IS NULL OR held_until < ${NOW})
           ORDER BY id LIMIT ?`,
        )
        .all(max) as { id: number; body: string }[]
      const hold = this.#db.prepare(
        `UPDATE cairn_task_reports SET holder = ?, held_until = ${NOW} + ? WHERE id = ?`,
      )
      for (const row of rows) hold.run(holder, holdMs, row.id)
      return rows.map((row) => ({ id: String(row.id), body: row.body }))
    })
  }

  async extendReports(holder: string, holdMs: number): Promise<void> {
    await this.#run(
      'extend a report hold',
      `UPDATE cairn_task_reports SET held_until = ${NOW} + ? WHERE holder = ?`,
      holdMs,
      holder,
    )
  }

  async deleteReports(holder: string): Promise<void> {
    await this.#run(
      'acknowledge reports',
      'DELETE FROM cairn_task_reports WHERE holder = ?',
      holder,
    )
  }

  async delayReports(holder: string, delayMs: number): Promise<void> {
    await this.#run(
      'release reports',
      `UPDATE cairn_task_reports SET holder = NULL, held_until = NULL, available_at = ${NOW} + ?
       WHERE holder = ?`,
      delayMs,
      holder,
    )
  }

  async deleteReport(id: string): Promise<void> {
    await this.#run('delete a report', 'DELETE FROM cairn_task_reports WHERE id = ?', Number(id))
  }

  async upsertWorker(workerId: string, body: string, at: number): Promise<void> {
    await this.#run(
      'record an announcement',
      `INSERT INTO cairn_workers (worker_id, body, at) VALUES (?, ?, ?)
       ON CONFLICT (worker_id) DO UPDATE SET body = excluded.body, at = excluded.at`,
      workerId,
      body,
      at,
    )
  }

  async listWorkers(): Promise<{ workerId: string; body: string }[]> {
    const rows = await this.#read('list workers', () =>
      this.#db.prepare('SELECT worker_id, body FROM cairn_workers').all(),
    )
    return (rows as { worker_id: string; body: string }[]).map((row) => ({
      workerId: row.worker_id,
      body: row.body,
    }))
  }

  async deleteWorkers(workerIds: readonly string[]): Promise<void> {
    await this.#run(
      'forget workers',
      'DELETE FROM cairn_workers WHERE worker_id IN (SELECT value FROM json_each(?))',
      JSON.stringify(workerIds),
    )
  }

  async listen(): Promise<null> {
    return null
  }

  async insertRawTask(taskKey: string, stepKey: string, body: string): Promise<void> {
    await this.#run(
      'insert a raw task',
      `INSERT INTO cairn_tasks (task_key, step_key, requires, body, available_at)
       VALUES (?, ?, '[]', ?, ${NOW})`,
      taskKey,
      stepKey,
      body,
    )
  }

  async close(): Promise<void> {
    if (this.#db.isOpen) this.#db.close()
  }

  /** A file has no connection to wait for: the same as close(). */
  cut(): void {
    if (this.#db.isOpen) this.#db.close()
  }

  #run(operation: string, sql: string, ...values: SQLInputValue[]): Promise<void> {
    return this.#write(operation, () => {
      this.#db.prepare(sql).run(...values)
    })
  }

  #read<T>(operation: string, body: () => T): Promise<T> {
    return withBusyRetry(operation, body)
  }

  #write<T>(operation: string, body: () => T): Promise<T> {
    return withBusyRetry(operation, body)
  }

  /** BEGIN IMMEDIATE … COMMIT: the write lock from the start, so reads inside are current. */
  #transaction<T>(operation: string, body: () => T): Promise<T> {
    return withBusyRetry(operation, () => {
      this.#db.exec('BEGIN IMMEDIATE')
      try {
        const result = body()
        this.#db.exec('COMMIT')
        return result
      } catch (error) {
        if (this.#db.isTransaction) this.#db.exec('ROLLBACK')
        throw error
      }
    })
  }
}

/** Runs `attempt` again while it fails with SQLITE_BUSY, up to BUSY_BOUND_MS in all. */
async function withBusyRetry<T>(operation: string, attempt: () => T): Promise<T> {
  const deadline = Date.now() + BUSY_BOUND_MS
  for (let tries = 0; ; tries++) {
    try {
      return attempt()
    } catch (error) {
      const delay = Math.min(50, 2 * 2 ** tries) * (0.5 + Math.random() / 2)
      if (!isBusy(error) || Date.now() + delay > deadline)
        throw new StoreFailureError(`db transport: ${operation} failed`, { cause: error })
      await sleep(delay)
    }
  }
}

function isBusy(error: unknown): boolean {
  const code = (error as { errcode?: unknown }).errcode
  return typeof code === 'number' && (code & 0xff) === 5 // SQLITE_BUSY and its extended codes
}
