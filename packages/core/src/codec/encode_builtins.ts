/**
 * Encoders of the built-in values that hold no other values (Date, RegExp, binary data, boxed
 * primitives, special numbers), keyed by prototype so a lookup is one Map probe and
 * subclasses (whose prototype differs) are not mistaken for the built-in.
 */
import { toBase64 } from './binary.ts'
import { isoString } from './iso_date.ts'
import { Tags, TYPED_ARRAYS, type Tagged } from './tags.ts'

export interface LeafKind {
  /** Names the kind in errors ("a Date"). */
  label: string
  encode(value: object): Tagged
  /**
   * How many own enumerable string keys a value of this kind has by nature (index keys of a
   * boxed string); more means properties were added, which are not kept. `null` skips the
   * check where counting keys costs a string per element (typed arrays, Buffer).
   */
  naturalKeys(value: object): number | null
}

const NONE = (): number => 0
const UNCHECKED = (): null => null

const SPECIAL_NUMBERS: Readonly<Record<string, Tagged>> = {
  NaN: { $t: Tags.NUMBER, v: 'NaN' },
  Infinity: { $t: Tags.NUMBER, v: 'Infinity' },
  '-Infinity': { $t: Tags.NUMBER, v: '-Infinity' },
}
const NEGATIVE_ZERO: Tagged = { $t: Tags.NUMBER, v: '-0' }

/** A number as JSON can hold it: itself, or a tag for NaN, ±Infinity and -0. */
export function encodeNumber(n: number): number | Tagged {
  if (n - n === 0) return n !== 0 || 1 / n > 0 ? n : NEGATIVE_ZERO
  return SPECIAL_NUMBERS[String(n)] as Tagged
}

export function encodeBigInt(n: bigint): Tagged {
  return { $t: Tags.BIGINT, v: n.toString() }
}

function encodeDate(value: object): Tagged {
  const date = value as Date
  // An invalid Date has no ISO form; null stands for it.
  return { $t: Tags.DATE, v: Number.isNaN(date.getTime()) ? null : isoString(date) }
}

function encodeRegExp(value: object): Tagged {
  const re = value as RegExp
  const out: Tagged = { $t: Tags.REGEXP, source: re.source, flags: re.flags }
  // assert.deepStrictEqual compares lastIndex, and a global regex in use carries one.
  if (re.lastIndex !== 0) out.lastIndex = re.lastIndex
  return out
}

function binary(tag: string): (value: object) => Tagged {
  return (value) => ({ $t: tag, v: toBase64(value as ArrayBufferView | ArrayBuffer) })
}

function boxed(unbox: (value: object) => string | number | boolean | bigint) {
  return (value: object): Tagged => {
    const primitive = unbox(value)
    if (typeof primitive === 'number') return { $t: Tags.BOXED, v: encodeNumber(primitive) }
    if (typeof primitive === 'bigint') return { $t: Tags.BOXED, v: encodeBigInt(primitive) }
    return { $t: Tags.BOXED, v: primitive }
  }
}

function leaf(label: string, encode: LeafKind['encode'], naturalKeys: LeafKind['naturalKeys']) {
  return { label, encode, naturalKeys }
}

function buildLeafKinds(): Map<object, LeafKind> {
  const kinds = new Map<object, LeafKind>([
    [Date.prototype, leaf('Date', encodeDate, NONE)],
    [RegExp.prototype, leaf('RegExp', encodeRegExp, NONE)],
    [ArrayBuffer.prototype, leaf('ArrayBuffer', binary(Tags.ARRAY_BUFFER), NONE)],
    [DataView.prototype, leaf('DataView', binary(Tags.DATA_VIEW), NONE)],
    [Buffer.prototype, leaf('Buffer', binary(Tags.BUFFER), UNCHECKED)],
    [
      Number.prototype,
      leaf(
        'Number object',
        boxed((v) => Number.prototype.valueOf.call(v)),
        NONE,
      ),
    ],
    [
      Boolean.prototype,
      leaf(
        'Boolean object',
        boxed((v) => Boolean.prototype.valueOf.call(v)),
        NONE,
      ),
    ],
    [
      BigInt.prototype,
      leaf(
        'BigInt object',
        boxed((v) => BigInt.prototype.valueOf.call(v)),
        NONE,
      ),
    ],
    [
      String.prototype,
      leaf(
        'String object',
        boxed((v) => String.prototype.valueOf.call(v)),
        (v) => (v as { length: number }).length,
      ),
    ],
  ])
  for (const [name, ctor] of TYPED_ARRAYS)
    kinds.set(ctor.prototype, leaf(name, binary(name), UNCHECKED))
  return kinds
}

/** Leaf kinds by the prototype of their values. */
export const LEAF_KINDS: ReadonlyMap<object, LeafKind> = buildLeafKinds()
