/**
 * Reviving parsed JSON: every object with a `$t` key is a tag the encoder wrote (it escapes
 * user objects that have one), so it is replaced by the value it stands for; everything else
 * is kept as parsed. Works in place: the parsed tree is fresh and nobody else holds it.
 */
import { fromBase64 } from './binary.ts'
import { buildError, defineVisible } from './error_shape.ts'
import { parseIsoDate } from './iso_date.ts'
import { Tags, TYPED_ARRAYS, type Tagged } from './tags.ts'

type Reviver = (tagged: Tagged) => unknown

const NUMBERS: Readonly<Record<string, number>> = {
  NaN: Number.NaN,
  Infinity: Number.POSITIVE_INFINITY,
  '-Infinity': Number.NEGATIVE_INFINITY,
  '-0': -0,
}

/** The value `parsed` (the JSON.parse of encoder output) stands for. */
export function reviveValue(parsed: unknown): unknown {
  if (typeof parsed !== 'object' || parsed === null) return parsed
  if (Array.isArray(parsed)) return reviveItems(parsed)
  const tag = (parsed as Partial<Tagged>).$t
  return tag === undefined
    ? reviveProperties(parsed as Record<string, unknown>)
    : reviveTagged(parsed as Tagged)
}

function reviveItems(items: unknown[]): unknown[] {
  for (let i = 0; i < items.length; i++) {
    const item = items[i]
    if (typeof item === 'object' && item !== null) items[i] = reviveValue(item)
  }
  return items
}

function reviveProperties(o: Record<string, unknown>): Record<string, unknown> {
  for (const key of Object.keys(o)) {
    const value = o[key]
    // Assigning to an existing own property is safe even for a key named `__proto__`.
    if (typeof value === 'object' && value !== null) o[key] = reviveValue(value)
  }
  return o
}

function reviveTagged(tagged: Tagged): unknown {
  const revive = REVIVERS.get(tagged.$t) ?? TYPED_ARRAY_REVIVERS.get(tagged.$t)
  if (revive === undefined) throw new TypeError(`cannot decode: unknown tag "${String(tagged.$t)}"`)
  return revive(tagged)
}

function reviveRegExp(t: Tagged): RegExp {
  const re = new RegExp(t.source as string, t.flags as string)
  if (typeof t.lastIndex === 'number') re.lastIndex = t.lastIndex
  return re
}

function reviveMap(t: Tagged): Map<unknown, unknown> {
  const map = new Map<unknown, unknown>()
  for (const [key, value] of t.v as Array<[unknown, unknown]>)
    map.set(reviveValue(key), reviveValue(value))
  return map
}

function reviveBoxed(t: Tagged): object {
  return Object(reviveValue(t.v)) as object
}

function reviveNullProto(t: Tagged): object {
  const o = reviveProperties(t.v as Record<string, unknown>)
  return Object.setPrototypeOf(o, null) as object
}

/** An array with holes: only the recorded properties are defined, the rest stay holes. */
function reviveArray(t: Tagged): unknown[] {
  const out = new Array<unknown>(t.length as number)
  const props = t.v as Record<string, unknown>
  for (const key of Object.keys(props)) defineVisible(out, key, reviveValue(props[key]))
  return out
}

function reviveError(t: Tagged): Error {
  return buildError({
    name: t.name as string,
    message: t.message as string,
    stack: t.stack as string | undefined,
    code: t.code as string | undefined,
    cause: Object.hasOwn(t, 'cause') ? { value: reviveValue(t.cause) } : undefined,
    errors: t.errors === undefined ? undefined : reviveItems(t.errors as unknown[]),
    props:
      t.props === undefined
        ? undefined
        : Object.entries(reviveProperties(t.props as Record<string, unknown>)),
  })
}

const REVIVERS: ReadonlyMap<string, Reviver> = new Map<string, Reviver>([
  [Tags.UNDEFINED, () => undefined],
  [Tags.NUMBER, (t) => NUMBERS[t.v as string]],
  [Tags.BIGINT, (t) => BigInt(t.v as string)],
  [Tags.DATE, (t) => (t.v === null ? new Date(Number.NaN) : parseIsoDate(t.v as string))],
  [Tags.REGEXP, reviveRegExp],
  [Tags.MAP, reviveMap],
  [Tags.SET, (t) => new Set(reviveItems(t.v as unknown[]))],
  [Tags.ERROR, reviveError],
  [Tags.BOXED, reviveBoxed],
  [Tags.NULL_PROTO, reviveNullProto],
  [Tags.OBJECT, (t) => reviveProperties(t.v as Record<string, unknown>)],
  [Tags.ARRAY, reviveArray],
  [Tags.ARRAY_BUFFER, (t) => fromBase64(t.v as string)],
  [Tags.DATA_VIEW, (t) => new DataView(fromBase64(t.v as string))],
  [Tags.BUFFER, (t) => Buffer.from(t.v as string, 'base64')],
])

const TYPED_ARRAY_REVIVERS: ReadonlyMap<string, Reviver> = new Map(
  [...TYPED_ARRAYS].map(([name, TypedArray]): [string, Reviver] => [
    name,
    (t) => new TypedArray(fromBase64(t.v as string)),
  ]),
)
