/**
 * Names a run waits on (signal names, breakpoint labels) are part of its history and of a
 * sender's address: plain, short text. Names starting with `cairn:` are Cairn's own (the
 * signal that continues a breakpoint) and are refused from workflow code and senders.
 */
import { InvalidArgumentError } from '../errors/index.ts'

const MAX_NAME_LENGTH = 200
export const RESERVED_PREFIX = 'cairn:'

export function checkSignalName(name: unknown, what = 'a signal name'): asserts name is string {
  if (typeof name === 'string' && name.startsWith(RESERVED_PREFIX)) {
    throw new InvalidArgumentError(
      `${what} may not start with "${RESERVED_PREFIX}" (reserved for Cairn), got ${JSON.stringify(name)}`,
    )
  }
  if (
    typeof name !== 'string' ||
    name === '' ||
    name.length > MAX_NAME_LENGTH ||
    !/^[\x21-\x7e]+$/.test(name)
  ) {
    throw new InvalidArgumentError(
      `${what} must be 1 to ${MAX_NAME_LENGTH} printable ASCII characters without spaces, got ${JSON.stringify(name)}`,
    )
  }
}

/** Asks a run to stop and undo its completed steps (`engine.cancel(runId, { compensate: true })`). */
export const CANCEL_SIGNAL = `${RESERVED_PREFIX}cancel`

/** The signal that continues the breakpoint at position `seq` (one per breakpoint: no stale continue). */
export function continueSignalName(seq: number): string {
  return `${RESERVED_PREFIX}continue:${seq}`
}
