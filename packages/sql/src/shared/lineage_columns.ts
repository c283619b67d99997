/**
 * The run columns of migration 7 (tags and origin) ↔ RunRecord.tags / RunRecord.origin, for
 * every dialect: `tags` is a JSON array or NULL (no tags); the origin is three columns, all
 * NULL for a run no operator made from another.
 */
import type { NewRun, RunOrigin } from '@cairn/core/contracts'

/** Column names, in the order fromLineageColumns reads them and lineageValues gives them. */
export const LINEAGE_COLUMNS = ['tags', 'origin_kind', 'origin_run_id', 'origin_from_seq'] as const

/** Values of LINEAGE_COLUMNS for a new run. */
export function lineageValues(
  run: NewRun,
): [string | null, string | null, string | null, number | null] {
  const tags = run.tags !== undefined && run.tags.length > 0 ? JSON.stringify(run.tags) : null
  const origin = run.origin
  return [tags, origin?.kind ?? null, origin?.runId ?? null, origin?.fromSeq ?? null]
}

/** Whether a new run writes any LINEAGE_COLUMNS value (most do not). */
export function hasLineage(run: NewRun): boolean {
  return (run.tags !== undefined && run.tags.length > 0) || run.origin !== undefined
}

export function toTags(tags: unknown): readonly string[] {
  return tags === null || tags === undefined ? [] : (JSON.parse(tags as string) as string[])
}

/** `fromSeq` as the driver returns it (a string for a Postgres BIGINT): see integers.ts. */
export function toOrigin(kind: unknown, runId: unknown, fromSeq: number | null): RunOrigin | null {
  if (kind === null || kind === undefined) return null
  return { kind: kind as RunOrigin['kind'], runId: runId as string, fromSeq }
}
