/**
 * Wait on the wall clock for something only a store read can tell (a value a run published,
 * the decision on an update): read, and while there is nothing, read again with back-off —
 * 5 ms doubling to 250 ms — until `deadline`. Caller-side waits; the engine's own work never
 * polls like this.
 */
const FIRST_POLL_MS = 5
const MAX_POLL_MS = 250

/** The first non-null read, or null once `deadline` (epoch ms) has passed. Reads at least once. */
export async function pollUntil<T>(
  read: () => Promise<T | null>,
  deadline: number,
): Promise<T | null> {
  for (let pollMs = FIRST_POLL_MS; ; pollMs = Math.min(pollMs * 2, MAX_POLL_MS)) {
    const value = await read()
    if (value !== null) return value
    const left = deadline - Date.now()
    if (left <= 0) return null
    await new Promise((resolve) => setTimeout(resolve, Math.min(pollMs, left)))
  }
}
