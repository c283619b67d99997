/**
 * The db transport's tables on Postgres, over node-postgres. Claims are one statement each
 * (UPDATE … WHERE key IN (SELECT … FOR UPDATE SKIP LOCKED) RETURNING), so concurrent workers
 * never wait on each other's rows; inserts NOTIFY the schema's channel in the same statement, so
 * idle workers and engines wake at once (delivered at commit; polling is the safety net).
 */
import type pg from 'pg'
import type { ClientConfig } from 'pg'
import { startWakeListener } from '../postgres/wake_listener.ts'
import { keyOf } from './keys.ts'
import { OwnSockets } from './own_sockets.ts'
import type {
  CompletedTask,
  ClaimedReport,
  ClaimedTask,
  ClaimQuery,
  StepDepthRow,
  TaskRow,
  TransportTables,
  WakeChannel,
} from './tables.ts'
import { depthSql, toDepthRows } from './depth_sql.ts'

/** Advisory-lock class of the transport's schema creation ('CaiT'). */
const SCHEMA_LOCK_CLASS = 0x43616954
const NOW = '(extract(epoch from clock_timestamp()) * 1000)::bigint'

export interface PostgresTablesConfig {
  pool: pg.Pool
  /** The pool was made here: close() ends it. */
  owned: boolean
  schema: string
  /** For the LISTEN connection (a pooled one cannot listen). */
  listenerConfig: ClientConfig
  /** The sockets the pool (when owned) and the listener connect through: cut() destroys them. */
  sockets?: OwnSockets
}

export class PostgresTables implements TransportTables {
  readonly dialect = 'postgres'
  readonly #pool: pg.Pool
  readonly #owned: boolean
  readonly #schema: string
  readonly #listenerConfig: ClientConfig
  readonly #sockets: OwnSockets
  readonly #t: { tasks: string; reports: string; workers: string; counters: string }

  constructor(config: PostgresTablesConfig) {
    this.#pool = config.pool
    this.#owned = config.owned
    this.#schema = config.schema
    this.#listenerConfig = config.listenerConfig
    this.#sockets = config.sockets ?? new OwnSockets()
    const s = ident(config.schema)
    this.#t = {
      tasks: `${s}.cairn_tasks`,
      reports: `${s}.cairn_task_reports`,
      workers: `${s}.cairn_workers`,
      counters: `${s}.cairn_task_counters`,
    }
  }

  async ensureSchema(): Promise<void> {
    const { tasks, reports, workers, counters } = this.#t
    const client = await this.#pool.connect()
    try {
      await client.query('BEGIN')
      await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [
        SCHEMA_LOCK_CLASS,
        this.#schema,
      ])
      const exists = await client.query('SELECT to_regnamespace($1) IS NOT NULL AS ok', [
        this.#schema,
      ])
      if ((exists.rows[0] as { ok: boolean }).ok !== true)
        await client.query(`CREATE SCHEMA ${ident(this.#schema)}`)
      await client.query(`CREATE TABLE IF NOT EXISTS ${tasks} (
        task_key text PRIMARY KEY,
        id bigserial NOT NULL,
        step_key text NOT NULL,
        requires jsonb NOT NULL,
        body text NOT NULL,
        available_at bigint NOT NULL,
        holder text,
        held_until bigint,
        deliveries integer NOT NULL DEFAULT 0
      )`)
      await client.query(
        `CREATE INDEX IF NOT EXISTS cairn_tasks_due ON ${tasks} (step_key, available_at, id)`,
      )
      await client.query(`CREATE TABLE IF NOT EXISTS ${reports} (
        id bigserial PRIMARY KEY,
        body text NOT NULL,
        available_at bigint NOT NULL,
        holder text,
        held_until bigint
      )`)
      await client.query(`CREATE TABLE IF NOT EXISTS ${workers} (
        worker_id text PRIMARY KEY,
        body text NOT NULL,
        at bigint NOT NULL
      )`)
      await client.query(`CREATE TABLE IF NOT EXISTS ${counters} (
        step_key text PRIMARY KEY,
        redelivered bigint NOT NULL DEFAULT 0
      )`)
      await client.query('COMMIT')
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {})
      throw error
    } finally {
      client.release()
    }
  }

  async insertTasks(rows: readonly TaskRow[]): Promise<void> {
    await this.#query(
      `WITH added AS (
         INSERT INTO ${this.#t.tasks} (task_key, step_key, requires, body, available_at)
         SELECT k, s, r::jsonb, b, ${NOW} + d
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[]) AS x(k, s, r, b, d)
         ON CONFLICT (task_key) DO NOTHING
         RETURNING 1
       )
       SELECT pg_notify($6, ${NOW}::text) FROM (SELECT count(*) AS n FROM added) AS c WHERE c.n > 0`,
      [
        rows.map((r) => r.taskKey),
        rows.map((r) => r.stepKey),
        rows.map((r) => JSON.stringify(r.requires)),
        rows.map((r) => r.body),
        rows.map((r) => r.delayMs),
        this.#channel('tasks'),
      ],
    )
  }

  async claimTasks(query: ClaimQuery): Promise<ClaimedTask[]> {
    const { tasks, counters } = this.#t
    // One statement: the claim, and the count of repeated deliveries among what it took.
    const result = await this.#query(
      `WITH claimed AS (
         UPDATE ${tasks} SET holder = $1, held_until = ${NOW} + $2, deliveries = deliveries + 1
         WHERE task_key IN (
           SELECT task_key FROM ${tasks}
           WHERE step_key = ANY($3::text[]) AND available_at <= ${NOW}
             AND (holder IS NULL OR held_until < ${NOW})
             AND requires <@ $4::jsonb
           ORDER BY available_at, id
           LIMIT $5
           FOR UPDATE SKIP LOCKED)
         RETURNING task_key, body, available_at, id, step_key, deliveries),
       counted AS (
         INSERT INTO ${counters} AS c (step_key, redelivered)
         SELECT step_key, count(*) FROM claimed WHERE deliveries > 1 GROUP BY step_key
         ON CONFLICT (step_key) DO UPDATE SET redelivered = c.redelivered + excluded.redelivered)
       SELECT task_key, body, available_at, id FROM claimed`,
      [query.holder, query.holdMs, query.stepKeys, JSON.stringify(query.capabilities), query.max],
    )
    return (result.rows as unknown[][])
      .sort((a, b) => Number(a[2]) - Number(b[2]) || Number(a[3]) - Number(b[3]))
      .map((row) => ({ taskKey: String(row[0]), body: String(row[1]) }))
  }

  async nextDueInMs(stepKeys: readonly string[]): Promise<number | null> {
    const result = await this.#query(
      `SELECT min(available_at) - ${NOW} FROM ${this.#t.tasks}
       WHERE step_key = ANY($1::text[]) AND holder IS NULL`,
      [stepKeys],
    )
    const value = (result.rows as unknown[][])[0]?.[0]
    return value === null || value === undefined ? null : Math.max(0, Number(value))
  }

  async extendTask(taskKey: string, holder: string, holdMs: number): Promise<boolean> {
    const result = await this.#query(
      `UPDATE ${this.#t.tasks} SET held_until = ${NOW} + $3
       WHERE task_key = $1 AND holder = $2 AND held_until >= ${NOW}`,
      [taskKey, holder, holdMs],
    )
    return result.rowCount === 1
  }

  async completeTasks(items: readonly CompletedTask[]): Promise<void> {
    await this.#query(
      `WITH gone AS (
         DELETE FROM ${this.#t.tasks} AS t USING unnest($1::text[], $2::text[]) AS h(k, w)
         WHERE t.task_key = h.k AND t.holder = h.w),
       sent AS (
         INSERT INTO ${this.#t.reports} (body, available_at)
         SELECT b, 0 FROM unnest($3::text[]) WITH ORDINALITY AS x(b, n) ORDER BY n)
       SELECT pg_notify($4, ${NOW}::text)`,
      [
        items.map((i) => i.taskKey),
        items.map((i) => i.holder),
        items.map((i) => i.report),
        this.#channel('reports'),
      ],
    )
  }

  async handBack(holds: readonly { taskKey: string; holder: string }[]): Promise<void> {
    if (holds.length === 0) return
    await this.#query(
      `WITH back AS (
         UPDATE ${this.#t.tasks} AS t SET holder = NULL, held_until = NULL
         FROM unnest($1::text[], $2::text[]) AS h(k, w)
         WHERE t.task_key = h.k AND t.holder = h.w
         RETURNING 1)
       SELECT pg_notify($3, ${NOW}::text) FROM (SELECT count(*) AS n FROM back) AS c WHERE c.n > 0`,
      [holds.map((h) => h.taskKey), holds.map((h) => h.holder), this.#channel('tasks')],
    )
  }

  async depth(): Promise<StepDepthRow[]> {
    const result = await this.#query(depthSql(this.#t, NOW), [])
    return toDepthRows(result.rows as unknown[][])
  }

  async withdrawTask(taskKey: string): Promise<'withdrawn' | 'taken' | 'unknown'> {
    // A claim holding the row makes the DELETE wait, then re-check deliveries: it finds 1.
    // The outer SELECT reads the statement's snapshot: the row as it was before either.
    const result = await this.#query(
      `WITH gone AS (DELETE FROM ${this.#t.tasks} WHERE task_key = $1 AND deliveries = 0 RETURNING 1)
       SELECT (SELECT count(*) FROM gone)::int, (SELECT count(*) FROM ${this.#t.tasks} WHERE task_key = $1)::int`,
      [taskKey],
    )
    const [gone, present] = (result.rows[0] ?? [0, 0]) as [number, number]
    return gone > 0 ? 'withdrawn' : present > 0 ? 'taken' : 'unknown'
  }

  async deleteTask(taskKey: string): Promise<void> {
    await this.#query(`DELETE FROM ${this.#t.tasks} WHERE task_key = $1`, [taskKey])
  }

  async insertReports(bodies: readonly string[]): Promise<void> {
    await this.#query(
      `WITH sent AS (
         INSERT INTO ${this.#t.reports} (body, available_at)
         SELECT b, 0 FROM unnest($1::text[]) WITH ORDINALITY AS x(b, n) ORDER BY n)
       SELECT pg_notify($2, ${NOW}::text)`,
      [bodies, this.#channel('reports')],
    )
  }

  async claimReports(holder: string, max: number, holdMs: number): Promise<ClaimedReport[]> {
    const { reports } = this.#t
    const result = await this.#query(
      `UPDATE ${reports} SET holder = $1, held_until = ${NOW} + $2
       WHERE id IN (
         SELECT id FROM ${reports}
         WHERE available_at <= ${NOW} AND (holder IS NULL OR held_until < ${NOW})
         ORDER BY id LIMIT $3
         FOR UPDATE SKIP LOCKED)
       RETURNING id, body`,
      [holder, holdMs, max],
    )
    return (result.rows as unknown[][])
      .map((row) => ({ id: String(row[0]), body: String(row[1]) }))
      .sort((a, b) => Number(a.id) - Number(b.id))
  }

  async extendReports(holder: string, holdMs: number): Promise<void> {
    await this.#query(`UPDATE ${this.#t.reports} SET held_until = ${NOW} + $2 WHERE holder = $1`, [
      holder,
      holdMs,
    ])
  }

  async deleteReports(holder: string): Promise<void> {
    await this.#query(`DELETE FROM ${this.#t.reports} WHERE holder = $1`, [holder])
  }

  async delayReports(holder: string, delayMs: number): Promise<void> {
    await this.#query(
      `UPDATE ${this.#t.reports} SET holder = NULL, held_until = NULL, available_at = ${NOW} + $2
       WHERE holder = $1`,
      [holder, delayMs],
    )
  }

  async deleteReport(id: string): Promise<void> {
    await this.#query(`DELETE FROM ${this.#t.reports} WHERE id = $1`, [id])
  }

  async upsertWorker(workerId: string, body: string, at: number): Promise<void> {
    await this.#query(
      `INSERT INTO ${this.#t.workers} (worker_id, body, at) VALUES ($1, $2, $3)
       ON CONFLICT (worker_id) DO UPDATE SET body = excluded.body, at = excluded.at`,
      [workerId, body, at],
    )
  }

  async listWorkers(): Promise<{ workerId: string; body: string }[]> {
    const result = await this.#query(`SELECT worker_id, body FROM ${this.#t.workers}`, [])
    return (result.rows as unknown[][]).map((row) => ({
      workerId: String(row[0]),
      body: String(row[1]),
    }))
  }

  async deleteWorkers(workerIds: readonly string[]): Promise<void> {
    await this.#query(`DELETE FROM ${this.#t.workers} WHERE worker_id = ANY($1::text[])`, [
      workerIds,
    ])
  }

  async listen(channel: WakeChannel, wake: () => void): Promise<() => Promise<void>> {
    return startWakeListener({
      config: this.#listenerConfig,
      channel: this.#channel(channel),
      onWake: wake,
    })
  }

  async insertRawTask(taskKey: string, stepKey: string, body: string): Promise<void> {
    await this.#query(
      `INSERT INTO ${this.#t.tasks} (task_key, step_key, requires, body, available_at)
       VALUES ($1, $2, '[]', $3, ${NOW})`,
      [taskKey, stepKey, body],
    )
  }

  async close(): Promise<void> {
    if (this.#owned) await this.#pool.end()
  }

  cut(): void {
    this.#sockets.cutAll()
  }

  /**
   * One channel per schema and stream (NOTIFY channels are per database, not per schema), named
   * by a hash so any schema name fits the 63-byte limit.
   */
  #channel(channel: WakeChannel): string {
    return `cairn_${channel}_${keyOf(this.#schema).slice(0, 24)}`
  }

  #query(text: string, values: unknown[]): Promise<pg.QueryArrayResult> {
    return this.#pool.query({ text, values, rowMode: 'array' })
  }
}

function ident(name: string): string {
  return `"${name.replaceAll('"', '""')}"`
}
