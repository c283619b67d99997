/**
 * A trigger's `batch` (or its workflow's `eventBatch`), checked at registration, and what a
 * matching event makes of it: the accumulator add the event's append carries
 * (contracts/event_batches.ts), and the id of the run an accumulator starts.
 */
import { createHash, randomUUID } from 'node:crypto'
import type { EventBatchAdd } from '../contracts/event_batches.ts'
import { InvalidArgumentError } from '../errors/index.ts'
import type { EventBatchOptions } from '../execution/types.ts'
import { checkFairnessKey } from '../store/queue_check.ts'
import { MAX_EVENT_BATCH_SIZE } from '../store/event_batch_rules.ts'
import { checkOptionKeys, optionNames, type OptionsSpec } from '../util/known_keys.ts'
import { MAX_TIME_MS } from '../util/numbers.ts'
import { MAX_ID_LENGTH } from '../util/validate.ts'

/** A batch spec as checked: the store's add fields, and the key function. */
export interface CheckedBatch {
  mode: 'debounce' | 'batch'
  windowMs: number
  maxSize: number | null
  maxWaitMs: number | null
  key: ((payload: unknown) => string) | null
}

type AnyBatch = Partial<Extract<EventBatchOptions, { mode: 'debounce' }>> &
  Partial<Extract<EventBatchOptions, { mode: 'batch' }>>

const DEBOUNCE_OPTIONS: OptionsSpec = {
  call: 'batch (debounce)',
  known: optionNames<Extract<EventBatchOptions, { mode: 'debounce' }>>({
    mode: true,
    windowMs: true,
    maxWaitMs: true,
    key: true,
  }),
}

const BATCH_OPTIONS: OptionsSpec = {
  call: 'batch (batch)',
  known: optionNames<Extract<EventBatchOptions, { mode: 'batch' }>>({
    mode: true,
    maxSize: true,
    windowMs: true,
    key: true,
  }),
}

/** Checks a batch spec; throws E_INVALID_ARGUMENT naming `where`. */
export function checkBatchSpec(spec: unknown, where: string): CheckedBatch {
  const refuse = (message: string) => new InvalidArgumentError(`${where}: ${message}`)
  if (spec === null || typeof spec !== 'object' || Array.isArray(spec))
    throw refuse(
      "batch is { mode: 'debounce', windowMs, maxWaitMs?, key? } or { mode: 'batch', maxSize, windowMs, key? }",
    )
  const s = spec as AnyBatch
  if (s.mode !== 'debounce' && s.mode !== 'batch')
    throw refuse(`batch mode is 'debounce' or 'batch', got ${JSON.stringify(s.mode)}`)
  checkOptionKeys(spec, s.mode === 'debounce' ? DEBOUNCE_OPTIONS : BATCH_OPTIONS, where)
  const windowMs = time(s.windowMs, 'windowMs', refuse)
  if (s.key !== undefined && typeof s.key !== 'function')
    throw refuse('batch key is a function of the payload returning a string')
  const key = s.key ?? null
  if (s.mode === 'debounce') {
    const maxWaitMs = s.maxWaitMs === undefined ? null : time(s.maxWaitMs, 'maxWaitMs', refuse)
    return { mode: 'debounce', windowMs, maxSize: null, maxWaitMs, key }
  }
  if (
    !Number.isSafeInteger(s.maxSize) ||
    (s.maxSize as number) < 1 ||
    (s.maxSize as number) > MAX_EVENT_BATCH_SIZE
  )
    throw refuse(`batch maxSize is an integer 1..${MAX_EVENT_BATCH_SIZE}, got ${String(s.maxSize)}`)
  return { mode: 'batch', windowMs, maxSize: s.maxSize as number, maxWaitMs: null, key }
}

function time(value: unknown, name: string, refuse: (m: string) => Error): number {
  if (!Number.isSafeInteger(value) || (value as number) < 1 || (value as number) > MAX_TIME_MS)
    throw refuse(`batch ${name} is a whole number of milliseconds >= 1, got ${String(value)}`)
  return value as number
}

/**
 * The add an event makes to `workflow`'s accumulator: its key from the payload (a throwing or
 * malformed key function throws, naming the workflow), a fresh id in case it opens one.
 */
export function batchAdd(
  workflow: string,
  batch: CheckedBatch,
  payload: () => unknown,
): EventBatchAdd {
  const key = batch.key === null ? '' : batch.key(payload())
  checkFairnessKey(key, `the batch key onEvent gave for workflow "${workflow}"`)
  return {
    workflow,
    key,
    mode: batch.mode,
    windowMs: batch.windowMs,
    maxSize: batch.maxSize,
    maxWaitMs: batch.maxWaitMs,
    openId: randomUUID(),
  }
}

/**
 * The id of the run accumulator `id` of `workflow` starts: `evb:<workflow>:<id>` (the
 * workflow's `\` and `:` escaped), past 255 characters `evb~<sha-256 of both>` — a prefix no
 * per-event run id (`evt:`) shares.
 */
export function batchRunId(workflow: string, id: string): string {
  const readable = `evb:${workflow.replaceAll('\\', '\\\\').replaceAll(':', '\\:')}:${id}`
  if (readable.length <= MAX_ID_LENGTH) return readable
  const digest = createHash('sha256')
    .update(JSON.stringify([workflow, id]))
    .digest('hex')
  return `evb~${digest}`
}
