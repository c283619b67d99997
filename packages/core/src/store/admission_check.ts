/**
 * What every store refuses in a createRun's `admission` before applying anything
 * (E_INVALID_ARGUMENT, the whole batch applies nothing). The engine builds admissions from a
 * workflow's `singleton` options and checks the key it computes with the same rules.
 */
import type { Admission } from '../contracts/index.ts'
import { InvalidArgumentError } from '../errors/index.ts'

export const MAX_ADMISSION_KEY_LENGTH = 256
/** A limit or queue depth above this is a mistake, not a bound (and fits every SQL integer). */
export const MAX_ADMISSION_COUNT = 1_000_000

const KEYS = new Set(['scope', 'key', 'limit', 'onFull', 'maxQueueDepth', 'inheritFrom'])

export function checkAdmission(admission: unknown, runId: string): Admission {
  if (typeof admission !== 'object' || admission === null || Array.isArray(admission))
    throw invalid('createRun: admission is an object', runId)
  const a = admission as Record<string, unknown>
  const unknown = Object.keys(a).find((k) => !KEYS.has(k))
  if (unknown !== undefined) throw invalid(`createRun: admission has no option "${unknown}"`, runId)
  checkAdmissionKey(a.scope, 'admission scope', runId)
  checkAdmissionKey(a.key, 'admission key', runId)
  if (!isCount(a.limit, 1))
    throw invalid(`createRun: admission limit is an integer 1..${MAX_ADMISSION_COUNT}`, runId)
  if (a.onFull !== 'reject' && a.onFull !== 'queue')
    throw invalid('createRun: admission onFull is "reject" or "queue"', runId)
  if (a.maxQueueDepth !== null && !isCount(a.maxQueueDepth, 0))
    throw invalid(
      `createRun: admission maxQueueDepth is null or an integer 0..${MAX_ADMISSION_COUNT}`,
      runId,
    )
  if (a.inheritFrom !== undefined && (typeof a.inheritFrom !== 'string' || a.inheritFrom === ''))
    throw invalid('createRun: admission inheritFrom is a run id', runId)
  return admission as Admission
}

/**
 * A scope or key: a well-formed string of 1..256 characters (code points). Anything else is
 * refused, never coerced: `String(undefined)` would put every such run under one key.
 */
export function checkAdmissionKey(value: unknown, what: string, runId: string): string {
  const ok =
    typeof value === 'string' &&
    value.isWellFormed() &&
    !value.includes('\u0000') &&
    [...value].length >= 1 &&
    [...value].length <= MAX_ADMISSION_KEY_LENGTH
  if (!ok)
    throw invalid(
      `${what} must be a string of 1..${MAX_ADMISSION_KEY_LENGTH} characters (no NUL), got ${describe(value)}`,
      runId,
    )
  return value
}

/** Keys one `promoteQueued` call takes. */
export const MAX_PROMOTE_KEYS = 100

/** `promoteQueued`'s keys: an array of at most 100 `{ scope, key }`, each well formed. */
export function checkPromoteKeys(keys: unknown): readonly { scope: string; key: string }[] {
  if (!Array.isArray(keys) || keys.length > MAX_PROMOTE_KEYS)
    throw new InvalidArgumentError(
      `promoteQueued: keys is an array of at most ${MAX_PROMOTE_KEYS} { scope, key }`,
    )
  for (const k of keys as unknown[]) {
    const { scope, key } = (typeof k === 'object' && k !== null ? k : {}) as Record<string, unknown>
    checkAdmissionKey(scope, 'promoteQueued: scope', '')
    checkAdmissionKey(key, 'promoteQueued: key', '')
  }
  return keys as { scope: string; key: string }[]
}

/** What a queued run waits on (RunRecord.waitingOn), the same in every store. */
export function queuedWaitingOn(key: string): string {
  return `singleton key ${JSON.stringify(key)}`
}

function isCount(value: unknown, min: number): value is number {
  return (
    Number.isSafeInteger(value) &&
    (value as number) >= min &&
    (value as number) <= MAX_ADMISSION_COUNT
  )
}

function describe(value: unknown): string {
  if (typeof value === 'string')
    return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)
  return value === null ? 'null' : typeof value
}

function invalid(message: string, runId: string): InvalidArgumentError {
  return new InvalidArgumentError(message, { details: { runId } })
}
