/**
 * The tagged path: turns any supported value into a tree JSON.stringify can write, tagging
 * what JSON cannot hold, or throws NotSerializableError naming where the bad value sits.
 * Plain data costs a copy here, so the codec only comes here when the plain check fails.
 */
import { CairnError } from '../errors/cairn_error.ts'
import { PayloadTooLargeError } from '../errors/payload_errors.ts'
import { encodeBigInt, encodeNumber, LEAF_KINDS, type LeafKind } from './encode_builtins.ts'
import { defineVisible, isError, readErrorParts } from './error_shape.ts'
import {
  indexStep,
  keyStep,
  mapKeyStep,
  mapValueStep,
  Rejection,
  setStep,
  symbolStep,
  toNotSerializable,
  withStep,
} from './rejection.ts'
import { Tags, type Tagged } from './tags.ts'

export interface EncodeLimits {
  /** Objects may nest this many levels deep. */
  maxDepth: number
  /** The byte limit of the output, which also bounds how many values are worth encoding. */
  maxBytes: number
  /** Names the payload in errors. */
  what: string
}

/**
 * How many values can fit in `maxBytes`. A container of n values writes its brackets, n - 1
 * separators and each value's text of at least one byte, so a value holding d values in all
 * writes at least 2d + 1 bytes (tags only add bytes): more than maxBytes / 2 cannot fit.
 */
export function maxValuesFor(maxBytes: number): number {
  return Math.floor(maxBytes / 2)
}

/** The error for a payload holding `values` values, at least 2 * values + 1 bytes. */
export function tooManyValues(limits: EncodeLimits, values: number): PayloadTooLargeError {
  return new PayloadTooLargeError(limits.what, 2 * values + 1, limits.maxBytes)
}

/** A path step: an object key, an array index, or a step built only if it is needed. */
type Step = string | number | (() => string)

const UNDEFINED: Tagged = { $t: Tags.UNDEFINED }
const INDEX_KEY = /^(?:0|[1-9]\d*)$/

/**
 * The JSON-ready tree of `value`. Throws NotSerializableError (path and reason) for values that
 * cannot round-trip, PayloadTooLargeError when it holds more values than can fit `maxBytes`.
 */
export function encodeValue(value: unknown, limits: EncodeLimits): unknown {
  try {
    return new Encoder(limits, null).value(value, 0)
  } catch (caught) {
    const err = asRejection(caught)
    if (!(err instanceof Rejection)) throw err
    // The first pass does not track cycles (a cycle just nests past maxDepth, which stops
    // it): when it refuses the value, a pass that tracks them says exactly where and why.
    return encodeTrackingCycles(value, limits)
  }
}

function encodeTrackingCycles(value: unknown, limits: EncodeLimits): unknown {
  try {
    return new Encoder(limits, new Set()).value(value, 0)
  } catch (caught) {
    const err = asRejection(caught)
    throw err instanceof Rejection ? toNotSerializable(err, limits.what) : err
  }
}

/**
 * The value's own code threw while it was read (a getter, a Proxy trap): the value cannot be
 * stored, and that is what the caller hears — E_NOT_SERIALIZABLE with the path — never the
 * raw error. The codec's own errors (a payload past its size limit) pass unchanged.
 */
function asRejection(err: unknown): unknown {
  if (err instanceof Rejection || CairnError.isCairnError(err)) return err
  return new Rejection(`reading it threw: ${errorText(err)}`)
}

/** A property, read: its getter may throw, which becomes a Rejection at that property's path. */
function readOwn(o: object, key: string, step: Step): unknown {
  try {
    return (o as Record<string, unknown>)[key]
  } catch (err) {
    throw withStep(asRejection(err), formatStep(step))
  }
}

function errorText(err: unknown): string {
  try {
    return err instanceof Error
      ? `${err.name}: ${err.message}`.slice(0, 200)
      : String(err).slice(0, 200)
  } catch {
    return 'an unreadable error'
  }
}

class Encoder {
  readonly limits: EncodeLimits
  /** The objects on the path from the root (meeting one again is a cycle), if tracked. */
  readonly ancestors: Set<object> | null
  readonly maxValues: number
  values = 0

  constructor(limits: EncodeLimits, ancestors: Set<object> | null) {
    this.limits = limits
    this.ancestors = ancestors
    this.maxValues = maxValuesFor(limits.maxBytes)
  }

  /** `depth` is the number of objects around `v`. */
  value(v: unknown, depth: number): unknown {
    switch (typeof v) {
      case 'string':
      case 'boolean':
        return v
      case 'number':
        return encodeNumber(v)
      case 'bigint':
        return encodeBigInt(v)
      case 'undefined':
        return UNDEFINED
      case 'object':
        return v === null ? null : this.object(v, depth)
      case 'function':
        throw new Rejection('a function cannot be stored')
      default:
        throw new Rejection('a symbol cannot be stored')
    }
  }

  object(o: object, depth: number): unknown {
    if (depth >= this.limits.maxDepth) {
      throw new Rejection(`objects nest deeper than ${this.limits.maxDepth} levels`)
    }
    const ancestors = this.ancestors
    if (ancestors === null) return this.byKind(o, depth)
    if (ancestors.has(o)) throw new Rejection('circular reference')
    ancestors.add(o)
    const out = this.byKind(o, depth)
    ancestors.delete(o)
    return out
  }

  byKind(o: object, depth: number): unknown {
    const proto: unknown = Object.getPrototypeOf(o)
    if (proto === Object.prototype) return this.plainObject(o, depth)
    if (proto === Array.prototype) return this.array(o as unknown[], depth)
    const leaf = LEAF_KINDS.get(proto as object)
    if (leaf !== undefined) return this.leaf(o, leaf)
    if (proto === Map.prototype) return this.map(o as Map<unknown, unknown>, depth)
    if (proto === Set.prototype) return this.set(o as Set<unknown>, depth)
    if (proto === null) return { $t: Tags.NULL_PROTO, v: this.properties(o, depth) }
    if (isError(o)) return this.error(o, depth)
    throw new Rejection(
      `${describeClass(proto)} cannot be restored (only plain objects, arrays and the built-ins in docs/codec.md are)`,
    )
  }

  plainObject(o: object, depth: number): unknown {
    const props = this.properties(o, depth)
    // A user `$t` key would read as a tag: wrap the object so decode never misreads it.
    return Object.hasOwn(props, '$t') ? { $t: Tags.OBJECT, v: props } : props
  }

  /** The own enumerable properties of `o`, encoded. */
  properties(o: object, depth: number): Record<string, unknown> {
    const keys = Object.keys(o)
    this.count(keys.length)
    const out: Record<string, unknown> = {}
    for (const key of keys) {
      setOwn(out, key, this.child(readOwn(o, key, key), depth, key))
    }
    this.rejectSymbolKeys(o)
    return out
  }

  array(a: unknown[], depth: number): unknown {
    const keys = Object.keys(a)
    if (!isDense(keys, a.length)) return this.arrayWithGaps(a, keys, depth)
    this.count(a.length)
    const out: unknown[] = []
    for (let i = 0; i < a.length; i++) out.push(this.child(a[i], depth, i))
    this.rejectSymbolKeys(a)
    return out
  }

  /** An array with holes or non-index properties: its length and own properties. */
  arrayWithGaps(a: unknown[], keys: string[], depth: number): Tagged {
    this.count(keys.length)
    const v: Record<string, unknown> = {}
    for (const key of keys) {
      const step = INDEX_KEY.test(key) ? Number(key) : key
      setOwn(v, key, this.child(readOwn(a, key, step), depth, step))
    }
    this.rejectSymbolKeys(a)
    return { $t: Tags.ARRAY, length: a.length, v }
  }

  map(m: Map<unknown, unknown>, depth: number): Tagged {
    this.rejectAddedProps(m, 0, 'Map')
    this.count(2 * m.size)
    const entries: unknown[] = []
    let i = 0
    for (const [key, value] of m) {
      const at = i++
      const k = this.child(key, depth, () => mapKeyStep(at))
      entries.push([k, this.child(value, depth, () => mapValueStep(key, at))])
    }
    return { $t: Tags.MAP, v: entries }
  }

  set(s: Set<unknown>, depth: number): Tagged {
    this.rejectAddedProps(s, 0, 'Set')
    this.count(s.size)
    const values: unknown[] = []
    let i = 0
    for (const value of s) {
      const at = i++
      values.push(this.child(value, depth, () => setStep(at)))
    }
    return { $t: Tags.SET, v: values }
  }

  leaf(o: object, kind: LeafKind): Tagged {
    const natural = kind.naturalKeys(o)
    if (natural !== null) this.rejectAddedProps(o, natural, kind.label)
    return kind.encode(o)
  }

  /** An Error as its recorded fields: name, message, stack, code, cause, errors, props. */
  error(e: Error, depth: number): Tagged {
    const parts = readErrorParts(e)
    const out: Tagged = { $t: Tags.ERROR, name: parts.name, message: parts.message }
    if (parts.stack !== undefined) out.stack = parts.stack
    if (parts.code !== undefined) out.code = parts.code
    const props = parts.props
    // A cause given to the constructor is hidden; an assigned one is a plain property.
    if (parts.cause?.enumerable === true) props.push(['cause', parts.cause.value])
    else if (parts.cause !== undefined) out.cause = this.child(parts.cause.value, depth, 'cause')
    if (parts.errors !== undefined) out.errors = this.child(parts.errors, depth, 'errors')
    if (props.length > 0) out.props = this.errorProps(props, depth)
    this.rejectSymbolKeys(e)
    return out
  }

  errorProps(props: Array<[string, unknown]>, depth: number): Record<string, unknown> {
    this.count(props.length)
    const out: Record<string, unknown> = {}
    for (const [key, value] of props) setOwn(out, key, this.child(value, depth, key))
    return out
  }

  /** Encodes a value held by an object at `depth`, adding `step` to any rejection's path. */
  child(value: unknown, depth: number, step: Step): unknown {
    try {
      return this.value(value, depth + 1)
    } catch (err) {
      throw withStep(asRejection(err), formatStep(step))
    }
  }

  count(values: number): void {
    this.values += values
    if (this.values > this.maxValues) throw tooManyValues(this.limits, this.values)
  }

  /** Built-ins restore without extra properties, so having some would lose them: refuse. */
  rejectAddedProps(o: object, naturalKeys: number, label: string): void {
    const keys = Object.keys(o)
    if (keys.length > naturalKeys) {
      const rejection = new Rejection(`properties added to a ${label} are not kept`)
      throw withStep(rejection, keyStep(keys[naturalKeys] as string))
    }
    this.rejectSymbolKeys(o)
  }

  /** Enumerable symbol keys cannot be written (hidden ones are no part of the value). */
  rejectSymbolKeys(o: object): void {
    for (const key of Object.getOwnPropertySymbols(o)) {
      if (!Object.prototype.propertyIsEnumerable.call(o, key)) continue
      throw withStep(new Rejection('a symbol-keyed property cannot be stored'), symbolStep(key))
    }
  }
}

function formatStep(step: Step): string {
  if (typeof step === 'number') return indexStep(step)
  return typeof step === 'string' ? keyStep(step) : step()
}

/** True when `keys` are exactly the indices 0..length-1 (own keys list indices first, in order). */
function isDense(keys: string[], length: number): boolean {
  return keys.length === length && (length === 0 || keys[length - 1] === String(length - 1))
}

function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') defineVisible(target, key, value)
  else target[key] = value
}

function describeClass(proto: unknown): string {
  try {
    const name = (proto as { constructor?: { name?: unknown } }).constructor?.name
    if (typeof name !== 'string' || name === '') return 'a class instance'
    // Same name, other prototype: made in another realm (a vm context), e.g. by a test runner.
    if (name === 'Object' || name === 'Array') return `an ${name} from another realm`
    return `an instance of ${name}`
  } catch {
    return 'a class instance'
  }
}
