/**
 * Protocol versions: a worker announces every version it speaks; an engine takes the highest it
 * speaks too, or refuses the worker (it is never handed tasks). Version 1 is the format of
 * messages.ts.
 */
import { ProtocolUnsupportedError } from '../errors/index.ts'

export const PROTOCOL_VERSIONS: readonly number[] = [1]

/** The version engine and worker both speak (the highest), or null when they share none. */
export function agreedProtocol(announced: readonly number[]): number | null {
  let best: number | null = null
  for (const version of announced) {
    if (PROTOCOL_VERSIONS.includes(version) && (best === null || version > best)) best = version
  }
  return best
}

/**
 * Refuses a worker's announcement that shares no protocol version with this code — the
 * transports' check at `announce`, after which that worker half receives nothing.
 */
export function checkAnnouncedProtocols(workerId: string, announced: readonly number[]): void {
  if (agreedProtocol(announced) !== null) return
  throw new ProtocolUnsupportedError(
    `worker "${workerId}" speaks wire protocol ${JSON.stringify([...announced])}; these engines speak ${JSON.stringify([...PROTOCOL_VERSIONS])}: refused, it is handed no task`,
    { details: { workerId, announced: [...announced], spoken: [...PROTOCOL_VERSIONS] } },
  )
}
