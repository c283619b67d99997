/**
 * The seam between the db transport's two halves and a database: the statements each dialect
 * (Postgres, MariaDB/MySQL, SQLite) implements over its own driver. Types only.
 *
 * Four tables in the database the store uses (never the store's own tables):
 * - tasks: one row per pending task (published, not yet completed), keyed by a hash of its task
 *   id; `holder` and `held_until` are its hold, `available_at` its delay;
 * - reports: worker results and heartbeats waiting for an engine, in insertion order;
 * - workers: each worker's newest announcement;
 * - counters: per step key, how many claims took a task that had been delivered before.
 * Times are the database's clock (Postgres, MariaDB) or the host's (SQLite, one host), so
 * engine and worker clocks need not agree.
 */

/** A task row to insert; `taskKey`/`stepKey` are hashes of the task id and the step name. */
export interface TaskRow {
  taskKey: string
  stepKey: string
  /** The step's required capabilities, sorted. */
  requires: readonly string[]
  body: string
  delayMs: number
}

export interface ClaimQuery {
  stepKeys: readonly string[]
  capabilities: readonly string[]
  max: number
  holdMs: number
  /** A token unique to this claim: the hold's identity. */
  holder: string
}

/** A claimed row: the task's key and its text, as stored (parsed by the caller). */
export interface ClaimedTask {
  taskKey: string
  body: string
}

export interface CompletedTask {
  taskKey: string
  holder: string
  report: string
}

export interface ClaimedReport {
  id: string
  body: string
}

/** One step key's tasks (TransportTables.depth). */
export interface StepDepthRow {
  stepKey: string
  ready: number
  delayed: number
  held: number
  oldestReadyAgeMs: number | null
  /** Claims of a task delivered before (a lapsed hold, a hand-back), counted since creation. */
  redelivered: number
}

/** Which wake-up a listener waits for. */
export type WakeChannel = 'tasks' | 'reports'

/**
 * Each method is one statement or one transaction: atomic on its own, never part of a caller's
 * transaction.
 */
export interface TransportTables {
  readonly dialect: 'postgres' | 'mysql' | 'sqlite'
  /** Creates the tables when missing (safe when several processes do it at once). */
  ensureSchema(): Promise<void>
  /** Inserts the tasks whose key is not pending; one statement; wakes listening workers. */
  insertTasks(rows: readonly TaskRow[]): Promise<void>
  /**
   * Holds and returns up to `max` tasks that are due, unheld (or whose hold lapsed), of one of
   * the steps, and whose requirements the capabilities meet; oldest due first. Concurrent claims
   * never return one task twice (row locks skipped, or the write lock on SQLite). A task taken
   * that had been delivered before adds one to its step key's counter, in the same transaction.
   */
  claimTasks(query: ClaimQuery): Promise<ClaimedTask[]>
  /** Milliseconds until the next of these steps' tasks is due (unheld), or null when none. */
  nextDueInMs(stepKeys: readonly string[]): Promise<number | null>
  /** Extends `holder`'s hold; false when it no longer holds the task. */
  extendTask(taskKey: string, holder: string, holdMs: number): Promise<boolean>
  /**
   * For each: deletes the task if `holder` still holds it, and inserts `report` (whether or not
   * it did: a late result goes to the engines, which refuse it) — one transaction for all.
   */
  completeTasks(items: readonly CompletedTask[]): Promise<void>
  /** Makes the tasks these holders hold due again at once. */
  handBack(holders: readonly { taskKey: string; holder: string }[]): Promise<void>
  /**
   * Deletes the task if it was never delivered (`deliveries = 0`), atomically against a claim
   * (EngineTransport.withdraw): `withdrawn`, else `taken` when the row is there, else `unknown`.
   */
  withdrawTask(taskKey: string): Promise<'withdrawn' | 'taken' | 'unknown'>
  /**
   * Task counts per step key: due and unheld (a lapsed hold counts as unheld), delayed, held;
   * and how long the oldest due unheld one has been due, by the database's clock; and each step
   * key's count of repeated deliveries, as rows of their own (zeros for the rest). One
   * statement, a scan of the tasks table (it holds only pending tasks) and of the counters.
   */
  depth(): Promise<StepDepthRow[]>
  /** Deletes a task whatever holds it (a poison row). */
  deleteTask(taskKey: string): Promise<void>
  /** Inserts reports in order; wakes listening engines. */
  insertReports(bodies: readonly string[]): Promise<void>
  /** Holds and returns up to `max` due, unheld reports, oldest first. */
  claimReports(holder: string, max: number, holdMs: number): Promise<ClaimedReport[]>
  extendReports(holder: string, holdMs: number): Promise<void>
  deleteReports(holder: string): Promise<void>
  /** Releases `holder`'s reports, due again after `delayMs`. */
  delayReports(holder: string, delayMs: number): Promise<void>
  /** Deletes one report whatever holds it (a poison row). */
  deleteReport(id: string): Promise<void>
  upsertWorker(workerId: string, body: string, at: number): Promise<void>
  listWorkers(): Promise<{ workerId: string; body: string }[]>
  deleteWorkers(workerIds: readonly string[]): Promise<void>
  /**
   * Calls `wake` when the channel is notified, on dialects that can (Postgres LISTEN/NOTIFY);
   * null where only polling finds new rows. The returned function stops listening.
   */
  listen(channel: WakeChannel, wake: () => void): Promise<(() => Promise<void>) | null>
  /** Test support: raw rows, as a misbehaving producer would write them. */
  insertRawTask(taskKey: string, stepKey: string, body: string): Promise<void>
  /** Ends the connections this transport opened. */
  close(): Promise<void>
  /**
   * Cuts the connections this transport opened, at once, whatever they are doing: the end of a
   * close whose connections would not end (a database that stopped answering).
   */
  cut(): void
}
