/**
 * The db transport's tables on MariaDB and MySQL 8, over mysql2. Claims are a short READ
 * COMMITTED transaction: SELECT … FOR UPDATE SKIP LOCKED, then UPDATE the rows taken, so
 * concurrent workers skip each other's rows instead of waiting. No NOTIFY here: idle workers and
 * engines poll (pollIntervalMs). Times are the server's clock in UTC, whatever the session's
 * time zone.
 */
import type { Pool, PoolConnection } from 'mysql2/promise'
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
import { OwnSockets } from './own_sockets.ts'
import { repeatedPerStep } from './repeat_counts.ts'

const NOW = "(TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000)"
const TABLE_OPTIONS = 'ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin'

export interface MysqlTablesConfig {
  pool: Pool
  owned: boolean
  /** Qualifies the tables (created when missing); null: the connection's database. */
  database: string | null
  /** The sockets the pool (when owned) connects through: cut() destroys them. */
  sockets?: OwnSockets
}

type Row = unknown[]

export class MysqlTables implements TransportTables {
  readonly dialect = 'mysql'
  readonly #pool: Pool
  readonly #owned: boolean
  readonly #database: string | null
  readonly #sockets: OwnSockets
  readonly #t: { tasks: string; reports: string; workers: string; counters: string }

  constructor(config: MysqlTablesConfig) {
    this.#pool = config.pool
    this.#owned = config.owned
    this.#database = config.database
    this.#sockets = config.sockets ?? new OwnSockets()
    const q = config.database === null ? '' : `${ident(config.database)}.`
    this.#t = {
      tasks: `${q}cairn_tasks`,
      reports: `${q}cairn_task_reports`,
      workers: `${q}cairn_workers`,
      counters: `${q}cairn_task_counters`,
    }
  }

  async ensureSchema(): Promise<void> {
    const { tasks, reports, workers, counters } = this.#t
    if (this.#database !== null)
      await this.#query(`CREATE DATABASE IF NOT EXISTS ${ident(this.#database)}`)
    await this.#query(`CREATE TABLE IF NOT EXISTS ${tasks} (
      id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
      task_key CHAR(64) CHARACTER SET ascii NOT NULL,
      step_key CHAR(64) CHARACTER SET ascii NOT NULL,
      requires TEXT NOT NULL,
      body LONGTEXT NOT NULL,
      available_at BIGINT NOT NULL,
      holder CHAR(36) CHARACTER SET ascii NULL,
      held_until BIGINT NULL,
      deliveries INT NOT NULL DEFAULT 0,
      UNIQUE KEY cairn_tasks_key (task_key),
      KEY cairn_tasks_due (step_key, available_at, id)
    ) ${TABLE_OPTIONS}`)
    await this.#query(`CREATE TABLE IF NOT EXISTS ${reports} (
      id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
      body LONGTEXT NOT NULL,
      available_at BIGINT NOT NULL,
      holder CHAR(36) CHARACTER SET ascii NULL,
      held_until BIGINT NULL,
      KEY cairn_task_reports_holder (holder)
    ) ${TABLE_OPTIONS}`)
    await this.#query(`CREATE TABLE IF NOT EXISTS ${workers} (
      worker_id VARCHAR(255) NOT NULL PRIMARY KEY,
      body LONGTEXT NOT NULL,
      at BIGINT NOT NULL
    ) ${TABLE_OPTIONS}`)
    await this.#query(`CREATE TABLE IF NOT EXISTS ${counters} (
      step_key CHAR(64) CHARACTER SET ascii NOT NULL PRIMARY KEY,
      redelivered BIGINT NOT NULL DEFAULT 0
    ) ${TABLE_OPTIONS}`)
  }

  async insertTasks(rows: readonly TaskRow[]): Promise<void> {
    const values: unknown[] = []
    for (const row of rows)
      values.push(row.taskKey, row.stepKey, JSON.stringify(row.requires), row.body, row.delayMs)
    await this.#query(
      `INSERT INTO ${this.#t.tasks} (task_key, step_key, requires, body, available_at)
       VALUES ${rows.map(() => `(?, ?, ?, ?, ${NOW} + ?)`).join(', ')}
       ON DUPLICATE KEY UPDATE task_key = task_key`,
      values,
    )
  }

  async claimTasks(query: ClaimQuery): Promise<ClaimedTask[]> {
    if (query.stepKeys.length === 0) return []
    const { tasks } = this.#t
    return this.#transaction(async (conn) => {
      const [rows] = await conn.query({
        sql: `SELECT task_key, body, step_key, deliveries FROM ${tasks}
              WHERE step_key IN (?) AND available_at <= ${NOW}
                AND (holder IS NULL OR held_until < ${NOW})
                AND JSON_CONTAINS(?, requires)
              ORDER BY available_at, id LIMIT ?
              FOR UPDATE SKIP LOCKED`,
        values: [query.stepKeys, JSON.stringify(query.capabilities), query.max],
        rowsAsArray: true,
      })
      const taken = (rows as Row[]).map((row) => ({
        taskKey: String(row[0]),
        body: String(row[1]),
      }))
      if (taken.length > 0)
        await conn.query(
          `UPDATE ${tasks} SET holder = ?, held_until = ${NOW} + ?, deliveries = deliveries + 1
           WHERE task_key IN (?)`,
          [query.holder, query.holdMs, taken.map((t) => t.taskKey)],
        )
      const repeats = repeatedPerStep((rows as Row[]).map((row) => [row[2], row[3]] as const))
      if (repeats.length > 0)
        await conn.query(
          `INSERT INTO ${this.#t.counters} (step_key, redelivered)
           VALUES ${repeats.map(() => '(?, ?)').join(', ')}
           ON DUPLICATE KEY UPDATE redelivered = redelivered + VALUES(redelivered)`,
          repeats.flat(),
        )
      return taken
    })
  }

  async nextDueInMs(stepKeys: readonly string[]): Promise<number | null> {
    if (stepKeys.length === 0) return null
    const rows = await this.#query(
      `SELECT MIN(available_at) - ${NOW} FROM ${this.#t.tasks}
       WHERE step_key IN (?) AND holder IS NULL`,
      [stepKeys],
    )
    const value = rows[0]?.[0]
    return value === null || value === undefined ? null : Math.max(0, Number(value))
  }

  async extendTask(taskKey: string, holder: string, holdMs: number): Promise<boolean> {
    const [result] = await this.#pool.query(
      `UPDATE ${this.#t.tasks} SET held_until = ${NOW} + ?
       WHERE task_key = ? AND holder = ? AND held_until >= ${NOW}`,
      [holdMs, taskKey, holder],
    )
    return (result as { affectedRows: number }).affectedRows === 1
  }

  async completeTasks(items: readonly CompletedTask[]): Promise<void> {
    await this.#transaction(async (conn) => {
      await conn.query(
        `INSERT INTO ${this.#t.reports} (body, available_at) VALUES ${items.map(() => '(?, 0)').join(', ')}`,
        items.map((i) => i.report),
      )
      await conn.query(`DELETE FROM ${this.#t.tasks} WHERE (task_key, holder) IN (?)`, [
        items.map((i) => [i.taskKey, i.holder]),
      ])
    })
  }

  async handBack(holds: readonly { taskKey: string; holder: string }[]): Promise<void> {
    if (holds.length === 0) return
    await this.#query(
      `UPDATE ${this.#t.tasks} SET holder = NULL, held_until = NULL
       WHERE (task_key, holder) IN (?)`,
      [holds.map((h) => [h.taskKey, h.holder])],
    )
  }

  async depth(): Promise<StepDepthRow[]> {
    return toDepthRows(await this.#query(depthSql(this.#t, NOW)))
  }

  async withdrawTask(taskKey: string): Promise<'withdrawn' | 'taken' | 'unknown'> {
    // The DELETE takes the row lock a claim holds (or waits for it), then reads deliveries.
    const [result] = await this.#pool.query(
      `DELETE FROM ${this.#t.tasks} WHERE task_key = ? AND deliveries = 0`,
      [taskKey],
    )
    if ((result as { affectedRows: number }).affectedRows === 1) return 'withdrawn'
    const rows = await this.#query(`SELECT 1 FROM ${this.#t.tasks} WHERE task_key = ?`, [taskKey])
    return rows.length > 0 ? 'taken' : 'unknown'
  }

  async deleteTask(taskKey: string): Promise<void> {
    await this.#query(`DELETE FROM ${this.#t.tasks} WHERE task_key = ?`, [taskKey])
  }

  async insertReports(bodies: readonly string[]): Promise<void> {
    if (bodies.length === 0) return
    await this.#query(
      `INSERT INTO ${this.#t.reports} (body, available_at) VALUES ${bodies.map(() => '(?, 0)').join(', ')}`,
      [...bodies],
    )
  }

  async claimReports(holder: string, max: number, holdMs: number): Promise<ClaimedReport[]> {
    const { reports } = this.#t
    return this.#transaction(async (conn) => {
      const [rows] = await conn.query({
        sql: `SELECT id, body FROM ${reports}
              WHERE available_at <= ${NOW} AND (holder IS NULL OR held_until < ${NOW})
              ORDER BY id LIMIT ?
              FOR UPDATE SKIP LOCKED`,
        values: [max],
        rowsAsArray: true,
      })
      const taken = (rows as Row[]).map((row) => ({ id: String(row[0]), body: String(row[1]) }))
      if (taken.length > 0)
        await conn.query(
          `UPDATE ${reports} SET holder = ?, held_until = ${NOW} + ? WHERE id IN (?)`,
          [holder, holdMs, taken.map((t) => t.id)],
        )
      return taken
    })
  }

  async extendReports(holder: string, holdMs: number): Promise<void> {
    await this.#query(`UPDATE ${this.#t.reports} SET held_until = ${NOW} + ? WHERE holder = ?`, [
      holdMs,
      holder,
    ])
  }

  async deleteReports(holder: string): Promise<void> {
    await this.#query(`DELETE FROM ${this.#t.reports} WHERE holder = ?`, [holder])
  }

  async delayReports(holder: string, delayMs: number): Promise<void> {
    await this.#query(
      `UPDATE ${this.#t.reports} SET holder = NULL, held_until = NULL, available_at = ${NOW} + ?
       WHERE holder = ?`,
      [delayMs, holder],
    )
  }

  async deleteReport(id: string): Promise<void> {
    await this.#query(`DELETE FROM ${this.#t.reports} WHERE id = ?`, [id])
  }

  async upsertWorker(workerId: string, body: string, at: number): Promise<void> {
    await this.#query(
      `INSERT INTO ${this.#t.workers} (worker_id, body, at) VALUES (?, ?, ?)
       ON DUPLICATE KEY UPDATE body = VALUES(body), at = VALUES(at)`,
      [workerId, body, at],
    )
  }

  async listWorkers(): Promise<{ workerId: string; body: string }[]> {
    const rows = await this.#query(`SELECT worker_id, body FROM ${this.#t.workers}`, [])
    return rows.map((row) => ({ workerId: String(row[0]), body: String(row[1]) }))
  }

  async deleteWorkers(workerIds: readonly string[]): Promise<void> {
    if (workerIds.length === 0) return
    await this.#query(`DELETE FROM ${this.#t.workers} WHERE worker_id IN (?)`, [[...workerIds]])
  }

  async listen(): Promise<null> {
    return null
  }

  async insertRawTask(taskKey: string, stepKey: string, body: string): Promise<void> {
    await this.#query(
      `INSERT INTO ${this.#t.tasks} (task_key, step_key, requires, body, available_at)
       VALUES (?, ?, '[]', ?, ${NOW})`,
      [taskKey, stepKey, body],
    )
  }

  async close(): Promise<void> {
    if (this.#owned) await this.#pool.end()
  }

  cut(): void {
    this.#sockets.cutAll()
  }

  async #query(sql: string, values: unknown[] = []): Promise<Row[]> {
    const [rows] = await this.#pool.query({ sql, values, rowsAsArray: true })
    return Array.isArray(rows) ? (rows as Row[]) : []
  }

  /**
   * `body` in one READ COMMITTED transaction. A deadlock (InnoDB rolled the transaction back:
   * nothing applied) is tried again, a few times with a short random pause: concurrent
   * receivers locking overlapping task rows in different orders is expected, not a failure.
   */
  async #transaction<T>(body: (conn: PoolConnection) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#once(body)
      } catch (error) {
        if (
          attempt >= DEADLOCK_ATTEMPTS ||
          (error as { errno?: number }).errno !== ER_LOCK_DEADLOCK
        )
          throw error
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt))
      }
    }
  }

  async #once<T>(body: (conn: PoolConnection) => Promise<T>): Promise<T> {
    const conn = await this.#pool.getConnection()
    try {
      await conn.query('SET TRANSACTION ISOLATION LEVEL READ COMMITTED')
      await conn.query('START TRANSACTION')
      const result = await body(conn)
      await conn.query('COMMIT')
      return result
    } catch (error) {
      await conn.query('ROLLBACK').catch(() => {})
      throw error
    } finally {
      conn.release()
    }
  }
}

/** InnoDB's deadlock error: the transaction was rolled back. */
const ER_LOCK_DEADLOCK = 1213
const DEADLOCK_ATTEMPTS = 5

function ident(name: string): string {
  return `\`${name.replaceAll('`', '``')}\``
}
