/**
 * Schedules as a StateStore keeps them (docs/design/schedules.md). Types only.
 *
 * A schedule starts runs of a workflow on a clock. The store holds its engine-owned `spec`
 * (JSON text it never reads inside), whether it is paused, and its firing state; the engine
 * computes windows and due times. Any driving engine fires due schedules: a claim leases them
 * (exactly one claimer per lease), the claimer starts each due window's run under a
 * deterministic run id (idempotent), then advances the schedule — fenced by its lease and by
 * the schedule's revision, so a put made meanwhile wins.
 *
 * Methods (on StateStore): `putSchedule`, `getSchedule`, `listSchedules`, `deleteSchedule`,
 * `claimDueSchedules`, `advanceSchedule`. Each is one transaction.
 */

export interface ScheduleRecord {
  /** 1..255 characters, well formed, no control characters (the engine's are at most 200). */
  id: string
  workflow: string
  /** The version to start, or null: the newest one the firing engine registers. */
  version: string | null
  /** Engine-owned JSON text: how windows fall, jitter, bounds, overlap, backfill, input. */
  spec: string
  paused: boolean
  /** Due time of the next window; null: none (paused, or past its end). */
  nextAt: number | null
  /** The scheduled time of the last window handled (fired, skipped or buffered); null: none. */
  lastWindow: number | null
  /** The run the last fired window started; null: none yet. */
  lastRunId: string | null
  /** A window held back by overlap `bufferOne` until `lastRunId` ends; null: none. */
  bufferedWindow: number | null
  /** Windows started, and windows skipped (overlap, backfill beyond maxCatchup), so far. */
  fired: number
  skipped: number
  /** +1 at every put: an advance computed from an older revision is refused. */
  revision: number
  createdAt: number
  updatedAt: number
  /** The engine holding the schedule's lease (firing it), and until when; null when free. */
  leaseOwner: string | null
  leaseUntil: number | null
}

/**
 * Create a schedule, or replace an existing one's workflow, version, spec, paused flag and
 * `nextAt` (revision + 1, its lease dropped: a firing in flight is refused its advance).
 * `lastWindow`: given, it replaces the stored one (a new spec counts windows from its change);
 * absent, it is kept (null on create). Counters, `lastRunId` and `bufferedWindow` are kept
 * (an update with `lastWindow` given drops `bufferedWindow`).
 */
export interface SchedulePut {
  id: string
  workflow: string
  version: string | null
  spec: string
  paused: boolean
  nextAt: number | null
  lastWindow?: number | null
  /**
   * Given: the put only replaces the schedule while its revision is this one — an existing
   * schedule, read by the caller, not changed since (a pause must not undo an update made
   * meanwhile) — and creates nothing; else it writes nothing and resolves null.
   */
  ifRevision?: number
  now: number
}

export interface ScheduleListQuery {
  /** Schedules with an id after this one (code-point order); absent: from the first. */
  after?: string
  /** 1..1000. */
  limit: number
}

export interface ClaimSchedulesRequest {
  now: number
  owner: string
  leaseMs: number
  /** 1..1000. */
  limit: number
  /** Only schedules of these workflows (the claimer can start them): 1..1000 names. */
  workflows: readonly string[]
}

export interface ClaimedSchedules {
  /** Not paused, `nextAt <= now`, lease free or lapsed: now leased to the claimer. Oldest due first. */
  claimed: ScheduleRecord[]
  /** The earliest `nextAt` of the claimer's workflows' schedules left (not due, or leased), or null. */
  nextAt: number | null
}

/**
 * What a firing did: the new state, written only while `owner` still holds the lease and the
 * revision is `revision`; the lease is released. Counters are added to.
 */
export interface ScheduleAdvance {
  id: string
  owner: string
  revision: number
  nextAt: number | null
  lastWindow: number | null
  lastRunId: string | null
  bufferedWindow: number | null
  fired: number
  skipped: number
  now: number
}

/** `stale`: the lease was lost or the schedule was put or deleted meanwhile; nothing written. */
export type ScheduleAdvanceResult = 'applied' | 'stale'
