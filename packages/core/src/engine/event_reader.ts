/**
 * `engine.getEvent(runId, key)`: the latest value a run published with `ctx.setEvent(key, …)`
 * (the highest position recorded for that key), or undefined. With `timeoutMs`, waits up to
 * that long for a first value (pollUntil: back-off on the wall clock) before answering undefined.
 */
import type { CheckpointRecord } from '../contracts/records.ts'
import { RunNotFoundError } from '../errors/index.ts'
import { checkSignalName } from '../execution/wait_names.ts'
import { checkInteger, MAX_TIME_MS } from '../util/numbers.ts'
import { assertIdentifier } from '../util/validate.ts'
import type { ResolvedEngineOptions } from './options.ts'
import { pollUntil } from './poll_until.ts'

export interface GetEventOptions {
  /** Wait up to this long for the key to be set. Default 0: answer now. */
  timeoutMs?: number
}

export async function readEvent<T>(
  options: ResolvedEngineOptions,
  runId: string,
  key: string,
  { timeoutMs = 0 }: GetEventOptions = {},
): Promise<T | undefined> {
  assertIdentifier(runId, 'runId')
  checkInteger(timeoutMs, 'getEvent timeoutMs', { min: 0, max: MAX_TIME_MS })
  checkSignalName(key, 'an event key')
  const read = async () => {
    const records = await options.store.loadCheckpoints(runId)
    return { records, latest: latestValue(records, key) ?? null }
  }
  const first = await read()
  // An unknown run has no history: checked once, not on every poll.
  if (first.records.length === 0 && (await options.store.getRun(runId)) === null)
    throw new RunNotFoundError(`no run with id "${runId}"`, { details: { runId } })
  const latest =
    first.latest ?? (await pollUntil(async () => (await read()).latest, Date.now() + timeoutMs))
  if (latest === null || latest.output === null) return undefined
  return options.codec.decode(latest.output) as T
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
