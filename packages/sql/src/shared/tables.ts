/**
 * Table names, qualified by the schema (Postgres) or database (MySQL) the store lives in.
 * Qualified names rather than a connection's search path: a pool handed in by the caller is
 * used as it is, and two stores on one pool may live in different schemas.
 */
import type { SqlDialect } from './dialect.ts'

export interface Tables {
  schema: string
  runs: string
  checkpoints: string
  /** Run inboxes: messages (signals) accepted for a run, kept after consumption for dedupe. */
  messages: string
  /** The broadcast event log (kept for a retention window). */
  events: string
  /** Registered event waits of suspended runs, by event name. */
  eventWaits: string
  /** Search attributes: one row per (run, name), typed (ctx.upsertSearchAttributes). */
  searchAttributes: string
  /** Run tags: one row per (tag, run), keyed for listRuns({ tag }) (migration 7). */
  runTags: string
  /** Singleton keys: each key's limit and next queue number (migration 12). */
  admissionKeys: string
  /** Named queues: each queue's concurrency and its enqueue and grant counters (migration 14). */
  queues: string
  /** Queue items: a step attempt waiting for, or holding, a queue's slot (migration 14). */
  queueItems: string
  /** Each queue's fairness keys and the grant number of their last grant (migration 14). */
  queueKeys: string
  /** Each rate-limited queue's recent grants: grant number → its time (migration 15). */
  queueGrantLog: string
  /** Slot leases: each (queue, owner)'s slots and when they expire (migration 22). */
  queueLeases: string
  /** Event accumulators: one row per accumulator, its times and claim lease (migration 17). */
  eventBatches: string
  /** An accumulator's payloads, numbered in append order (migration 17). */
  eventBatchItems: string
  /** Schedules: one row per schedule, its spec, firing state and claim lease (migration 19). */
  schedules: string
  /** Step logs: one row per (run, seq) a step logged at, its record as JSON text (migration 21). */
  stepLogs: string
  /** The one-row schema revision marker. */
  marker: string
}

export function qualifiedTables(dialect: SqlDialect, schema: string): Tables {
  const qualify = (table: string) => `${dialect.quoteIdent(schema)}.${table}`
  return {
    schema,
    runs: qualify('cairn_runs'),
    checkpoints: qualify('cairn_checkpoints'),
    messages: qualify('cairn_messages'),
    events: qualify('cairn_events'),
    eventWaits: qualify('cairn_event_waits'),
    searchAttributes: qualify('cairn_search_attributes'),
    runTags: qualify('cairn_run_tags'),
    admissionKeys: qualify('cairn_admission_keys'),
    queues: qualify('cairn_queues'),
    queueItems: qualify('cairn_queue_items'),
    queueKeys: qualify('cairn_queue_keys'),
    queueGrantLog: qualify('cairn_queue_grant_log'),
    queueLeases: qualify('cairn_queue_leases'),
    eventBatches: qualify('cairn_event_batches'),
    eventBatchItems: qualify('cairn_event_batch_items'),
    schedules: qualify('cairn_schedules'),
    stepLogs: qualify('cairn_step_logs'),
    marker: qualify('cairn_schema'),
  }
}
