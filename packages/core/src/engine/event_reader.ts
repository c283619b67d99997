/**
 * `engine.getEvent(runId, key)`: the latest value a run published with `ctx.setEvent(key, …)`
 * (the highest position recorded for that key), or undefined. With `timeoutMs`, waits up to
 * that long for a first value (polling the store with back-off) before answering undefined.
 */
import type { CheckpointRecord } from '../contracts/records.ts'
import { RunNotFoundError } from '../errors/index.ts'
import { checkSignalName } from '../execution/wait_names.ts'
import { assertIdentifier } from '../util/validate.ts'
import type { ResolvedEngineOptions } from './options.ts'

export interface GetEventOptions {
  /** Wait up to this long for the key to be set. Default 0: answer now. */
  timeoutMs?: number
}

const FIRST_POLL_MS = 5
const MAX_POLL_MS = 250

export async function readEvent<T>(
  options: ResolvedEngineOptions,
  runId: string,
  key: string,
  { timeoutMs = 0 }: GetEventOptions = {},
): Promise<T | undefined> {
  assertIdentifier(runId, 'runId')
  checkSignalName(key, 'an event key')
  const deadline = Date.now() + timeoutMs
  for (let pollMs = FIRST_POLL_MS; ; pollMs = Math.min(pollMs * 2, MAX_POLL_MS)) {
    const records = await options.store.loadCheckpoints(runId)
    const latest = latestValue(records, key)
    if (latest !== undefined)
      return latest.output === null ? undefined : (options.codec.decode(latest.output) as T)
    if (records.length === 0 && (await options.store.getRun(runId)) === null)
      throw new RunNotFoundError(`no run with id "${runId}"`, { details: { runId } })
    const left = deadline - Date.now()
    if (left <= 0) return undefined
    // Real time, like waitForRun: a caller outside the workflow waits on the wall clock.
    await new Promise((resolve) => setTimeout(resolve, Math.min(pollMs, left)))
  }
}

function latestValue(
  records: readonly CheckpointRecord[],
  key: string,
): CheckpointRecord | undefined {
  let latest: CheckpointRecord | undefined
  for (const r of records)
    if (r.kind === 'set_event' && r.name === key && r.status === 'completed') latest = r
  return latest
}
