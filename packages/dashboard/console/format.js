// Formatting of times, durations and payloads for display. Pure functions, no DOM.

/** ISO time → local `YYYY-MM-DD HH:MM:SS`; '—' for null. */
export function formatTime(iso) {
  if (iso === null || iso === undefined) return '—'
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return String(iso)
  const pad = (n) => String(n).padStart(2, '0')
  const day = `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`
  return `${day} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`
}

/** Milliseconds → `850 ms`, `12.4 s`, `3 min 5 s`, `2 h 10 min`; '—' for null. */
export function formatDuration(ms) {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '—'
  if (ms < 1000) return `${Math.round(ms)} ms`
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`
  if (ms < 3_600_000) return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`
  return `${Math.floor(ms / 3_600_000)} h ${Math.round((ms % 3_600_000) / 60_000)} min`
}

/** A JSON value pretty-printed for a <pre>; `undefined` (no value) → '(none)'. */
export function formatJson(value) {
  if (value === undefined) return '(none)'
  return JSON.stringify(value, null, 2)
}

/** Shortens `text` to `max` characters with an ellipsis. */
export function truncate(text, max) {
  const value = String(text ?? '')
  return value.length <= max ? value : `${value.slice(0, max - 1)}…`
}

/** ISO time → value for <input type="datetime-local"> (local time), '' when absent. */
export function toLocalInput(iso) {
  if (!iso) return ''
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return ''
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60_000)
  return local.toISOString().slice(0, 16)
}

/** <input type="datetime-local"> value → ISO time, '' when empty or invalid. */
export function fromLocalInput(value) {
  if (!value) return ''
  const date = new Date(value)
  return Number.isNaN(date.getTime()) ? '' : date.toISOString()
}

/** ISO time → local `HH:MM:SS.mmm` (log lines come many to the second); '—' for null. */
export function formatLogTime(iso) {
  if (iso === null || iso === undefined) return '—'
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return String(iso)
  const pad = (n, width = 2) => String(n).padStart(width, '0')
  const clock = `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`
  return `${clock}.${pad(date.getMilliseconds(), 3)}`
}
