/**
 * `stepLogs` (EngineOptions): how many lines a step position keeps and how often a running
 * step's lines reach the store (docs/step-logs.md).
 */
import { InvalidArgumentError } from '../errors/index.ts'
import { DEFAULT_STEP_LOG_ENTRIES, MAX_STEP_LOG_ENTRIES } from '../step_logs/step_log_rules.ts'
import { checkOptionKeys, optionNames, type OptionsSpec } from '../util/known_keys.ts'

export interface StepLogOptions {
  /**
   * Lines a position keeps across its attempts, 1..1,000: past it the oldest are dropped
   * and counted. Default 200.
   */
  maxEntries?: number
  /**
   * While a step runs, its new lines and progress are written at most this often (ms,
   * 50..60,000), so a dashboard shows them live; a step that ends sooner writes them with its
   * outcome only (no extra write). Default 1000.
   */
  flushIntervalMs?: number
}

export interface ResolvedStepLogs {
  maxEntries: number
  flushIntervalMs: number
}

const SPEC: OptionsSpec = {
  call: 'new Engine: stepLogs',
  known: optionNames<StepLogOptions>({ maxEntries: true, flushIntervalMs: true }),
}

export function resolveStepLogs(options: StepLogOptions | undefined): ResolvedStepLogs {
  if (options === undefined) return { maxEntries: DEFAULT_STEP_LOG_ENTRIES, flushIntervalMs: 1000 }
  if (options === null || typeof options !== 'object' || Array.isArray(options))
    throw new InvalidArgumentError('stepLogs must be an object { maxEntries?, flushIntervalMs? }')
  checkOptionKeys(options, SPEC)
  const maxEntries = options.maxEntries ?? DEFAULT_STEP_LOG_ENTRIES
  const flushIntervalMs = options.flushIntervalMs ?? 1000
  integer(maxEntries, 'stepLogs.maxEntries', 1, MAX_STEP_LOG_ENTRIES)
  integer(flushIntervalMs, 'stepLogs.flushIntervalMs', 50, 60_000)
  return { maxEntries, flushIntervalMs }
}

function integer(value: unknown, name: string, min: number, max: number): void {
  if (Number.isSafeInteger(value) && (value as number) >= min && (value as number) <= max) return
  throw new InvalidArgumentError(
    `${name} must be an integer ${min}..${max}, got ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`,
    { details: { option: name } },
  )
}
