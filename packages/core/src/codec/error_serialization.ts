/**
 * What the engine records when a step or run fails: a SerializedError. Unlike an Error inside
 * a payload (which must round-trip exactly or be refused), recording a failure must never
 * fail, so this keeps what can be stored and describes the rest: getters that throw, props
 * the codec refuses, causes beyond MAX_CAUSE_DEPTH, thrown values that are not Errors.
 */
import type { SerializedError } from '../contracts/codec.ts'
import { encodeValue, type EncodeLimits } from './encode_value.ts'
import {
  buildError,
  defineVisible,
  isError,
  readErrorParts,
  type ErrorParts,
  type PropertyReader,
} from './error_shape.ts'

/** Causes nested deeper than this are cut (a cause chain can even be a cycle). */
export const MAX_CAUSE_DEPTH = 8
/** Descriptions of values that cannot be kept are cut to this length. */
const MAX_DESCRIPTION_CHARS = 1024
const NON_ERROR_NAME = 'NonErrorThrown'
const TRUNCATED_NAME = 'CauseChainTruncated'

// Props are kept when the default codec can encode them; the run's codec may have a smaller
// size limit, which the engine meets when it encodes the whole record.
const PROBE_LIMITS: EncodeLimits = {
  maxDepth: 512,
  maxBytes: 4 * 1024 * 1024,
  what: 'error property',
}

/** The record of `thrown`, whatever it is. Never throws. */
export function serializeError(thrown: unknown): SerializedError {
  return serializeAt(thrown, 0)
}

function serializeAt(thrown: unknown, depth: number): SerializedError {
  try {
    if (!isError(thrown)) return serializeNonError(thrown)
    return fromParts(readErrorParts(thrown, readGuarded), depth)
  } catch (err) {
    // Only a hostile object gets here (a Proxy whose traps throw, say).
    return { name: 'Error', message: `error could not be read: ${describe(err)}` }
  }
}

function fromParts(parts: ErrorParts, depth: number): SerializedError {
  const out: SerializedError = { name: parts.name, message: parts.message }
  if (parts.stack !== undefined) out.stack = parts.stack
  if (parts.code !== undefined) out.code = parts.code
  if (parts.cause !== undefined) out.cause = serializeCause(parts.cause.value, depth + 1)
  const props: Array<[string, unknown]> = parts.props
  if (parts.errors !== undefined) props.push(['errors', parts.errors])
  if (props.length > 0) out.props = keepableProps(props)
  return out
}

function serializeCause(cause: unknown, depth: number): SerializedError | { value: unknown } {
  if (depth >= MAX_CAUSE_DEPTH) {
    return {
      name: TRUNCATED_NAME,
      message: `causes deeper than ${MAX_CAUSE_DEPTH} levels are not recorded`,
    }
  }
  if (isError(cause)) return serializeAt(cause, depth)
  return { value: keepable(cause) }
}

/** A thrown string, object, undefined, …: an Error-like record keeping the value itself. */
function serializeNonError(thrown: unknown): SerializedError {
  const out: SerializedError = { name: NON_ERROR_NAME, message: describe(thrown) }
  if (isEncodable(thrown)) out.props = { value: thrown }
  return out
}

function keepableProps(props: Array<[string, unknown]>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [key, value] of props) defineVisible(out, key, keepable(value))
  return out
}

/** The value itself when the codec can store it, else a description of it. */
function keepable(value: unknown): unknown {
  return isEncodable(value) ? value : `[not serializable: ${describe(value)}]`
}

function isEncodable(value: unknown): boolean {
  try {
    encodeValue(value, PROBE_LIMITS)
    return true
  } catch {
    return false
  }
}

/** Reads a property, turning a throwing getter into a description of what it threw. */
const readGuarded: PropertyReader = (target, key) => {
  try {
    return (target as Record<string, unknown>)[key]
  } catch (err) {
    return `[reading ${key} threw: ${describe(err)}]`
  }
}

/** A short human description of any value, for messages. Never throws. */
function describe(value: unknown): string {
  try {
    return cut(describeUnsafe(value))
  } catch {
    return '[a value that cannot be described]'
  }
}

function describeUnsafe(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return value
    case 'function':
      return `function ${value.name || '(anonymous)'}`
    case 'symbol':
    case 'bigint':
      return value.toString()
    case 'object':
      if (value === null) return 'null'
      if (isError(value)) return `${String(value.name)}: ${String(value.message)}`
      return JSON.stringify(value) ?? Object.prototype.toString.call(value)
    default:
      return String(value)
  }
}

function cut(text: string): string {
  return text.length <= MAX_DESCRIPTION_CHARS ? text : `${text.slice(0, MAX_DESCRIPTION_CHARS)}…`
}

/**
 * An Error rebuilt from a record: of the built-in class its name names (else Error), with
 * name, message, stack, code, cause and props restored. It is not an instance of the thrown
 * class, so check `code` (or `name`), not `instanceof` or `FatalError.is`.
 */
export function deserializeError(record: SerializedError): Error {
  const props = { ...record.props }
  const errors =
    record.name === 'AggregateError' && Array.isArray(props.errors) ? props.errors : undefined
  if (errors !== undefined) delete props.errors
  return buildError({
    name: typeof record.name === 'string' ? record.name : 'Error',
    message: typeof record.message === 'string' ? record.message : '',
    stack: record.stack,
    code: typeof record.code === 'string' ? record.code : undefined,
    cause: record.cause === undefined ? undefined : { value: deserializeCause(record.cause) },
    errors,
    props: Object.entries(props),
  })
}

function deserializeCause(cause: SerializedError | { value: unknown }): unknown {
  return isSerializedError(cause) ? deserializeError(cause) : cause.value
}

function isSerializedError(cause: SerializedError | { value: unknown }): cause is SerializedError {
  return (
    typeof (cause as SerializedError).name === 'string' &&
    typeof (cause as SerializedError).message === 'string'
  )
}
