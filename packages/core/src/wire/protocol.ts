/**
 * Protocol versions: a worker announces every version it speaks; an engine takes the highest it
 * speaks too, or refuses the worker (it is never handed tasks). Version 1 is the format of
 * messages.ts.
 */
export const PROTOCOL_VERSIONS: readonly number[] = [1]

/** The version engine and worker both speak (the highest), or null when they share none. */
export function agreedProtocol(announced: readonly number[]): number | null {
  let best: number | null = null
  for (const version of announced) {
    if (PROTOCOL_VERSIONS.includes(version) && (best === null || version > best)) best = version
  }
  return best
}
