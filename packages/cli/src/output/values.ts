/** How the CLI shows times and values: UTC to the second, JSON that never throws. */
import { toJsonValue } from '@cairn/dashboard/views'

/** `2026-12-01 02:24:06Z`; `-` for none. */
export function formatTime(date: Date | null | undefined): string {
  if (date == null) return '-'
  return `${date.toISOString().slice(0, 19).replace('T', ' ')}Z`
}

/** Milliseconds as `850ms`, `12.3s`, `4m05s`, `2h03m`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`
  const s = Math.floor(ms / 1000)
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`
}

/**
 * JSON text of decoded payloads, rendered as the dashboard API renders them (bigint as a
 * string, Map and Set as arrays, binary as base64, Errors as { name, message, code? }, Dates
 * as ISO strings): `cairn … --json` and the API agree.
 */
export function toJson(value: unknown, indent = 2): string {
  return JSON.stringify(toJsonValue(value), null, indent) ?? 'null'
}
