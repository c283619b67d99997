/** How the CLI shows times and values: UTC to the second, JSON that never throws. */

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
 * JSON text of decoded payloads: bigint as a string, Map and Set as arrays (what the
 * dashboard API sends too), Dates as ISO strings (their own toJSON).
 */
export function toJson(value: unknown, indent = 2): string {
  const text = JSON.stringify(
    value,
    (_key, v: unknown) => {
      if (typeof v === 'bigint') return v.toString()
      if (v instanceof Map) return [...v.entries()]
      if (v instanceof Set) return [...v]
      return v
    },
    indent,
  )
  return text ?? 'null'
}
