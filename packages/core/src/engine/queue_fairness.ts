/**
 * A queue's default fairness key (`registerQueue(name, { fairness })`): the key of a step
 * call that names none, derived from the step's input — a field's name (`'tenant'`: the
 * input's own `tenant`) or a function of the input. A call's own `fairnessKey` wins.
 *
 * The derived key is checked like a given one; a string or a finite number (a numeric tenant
 * id, as its decimal text) — anything else is the call's E_INVALID_ARGUMENT, never a silent
 * fallback to the common key, which would quietly undo the fairness the queue promises.
 */
import { InvalidArgumentError } from '../errors/index.ts'
import { checkFairnessKey } from '../store/queue_check.ts'

/** How a queue derives a step's fairness key from its input. */
export type QueueFairness = string | ((input: unknown) => unknown)

/** The checked form a registered queue keeps: where the key comes from, for messages too. */
export interface FairnessRule {
  /** `the input's field "tenant"` or `its fairness function`. */
  readonly source: string
  derive(input: unknown): unknown
}

/** Checks a queue's `fairness` option at registration (null: none given). */
export function fairnessRule(queue: string, fairness: unknown): FairnessRule | null {
  if (fairness === undefined) return null
  if (typeof fairness === 'function')
    return { source: 'its fairness function', derive: (input) => fairness(input) }
  if (typeof fairness === 'string' && fairness.length > 0 && fairness.length <= 200)
    return {
      source: `the input's field "${fairness}"`,
      derive: (input) => ownField(input, fairness),
    }
  throw new InvalidArgumentError(
    `queue "${queue}": fairness is the name of a field of the step's input (1 to 200 characters) or a function of the input, got ${describe(fairness)}`,
    { details: { queue, option: 'fairness' } },
  )
}

/** The fairness key `rule` derives from `input`, checked (throws E_INVALID_ARGUMENT). */
export function derivedFairnessKey(
  queue: string,
  rule: FairnessRule,
  input: unknown,
  where: string,
): string {
  let key: unknown
  try {
    key = rule.derive(input)
  } catch (error) {
    throw new InvalidArgumentError(
      `${where}: queue "${queue}": ${rule.source} threw: ${(error as Error)?.message ?? String(error)}`,
      { details: { queue, option: 'fairness' }, cause: error },
    )
  }
  const text = typeof key === 'number' && Number.isFinite(key) ? String(key) : key
  if (typeof text !== 'string')
    throw new InvalidArgumentError(
      `${where}: queue "${queue}" takes its fairness key from ${rule.source}, which gave ${describe(key)}: give a string (or a number), or the call's own fairnessKey`,
      { details: { queue, option: 'fairness' } },
    )
  // '' is the common key of calls that give none: deriving it would quietly undo fairness.
  if (text === '')
    throw new InvalidArgumentError(
      `${where}: queue "${queue}" takes its fairness key from ${rule.source}, which gave an empty string: give a non-empty key, or the call's own fairnessKey`,
      { details: { queue, option: 'fairness' } },
    )
  try {
    return checkFairnessKey(text, where)
  } catch (error) {
    throw new InvalidArgumentError(
      `${(error as Error).message} (from ${rule.source}, queue "${queue}")`,
      {
        details: { queue, option: 'fairness' },
      },
    )
  }
}

// An own field only: an input's prototype (`__proto__`, `constructor`) is not its data.
function ownField(input: unknown, field: string): unknown {
  if (input === null || typeof input !== 'object') return undefined
  return Object.hasOwn(input, field) ? (input as Record<string, unknown>)[field] : undefined
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing (undefined)'
  if (value === null) return 'null'
  if (typeof value === 'number') return String(value)
  if (typeof value === 'string') return `the string ${JSON.stringify(value.slice(0, 40))}`
  return Array.isArray(value) ? 'an array' : `a value of type ${typeof value}`
}
