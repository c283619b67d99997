/**
 * The tags of the encoded form. Plain JSON data encodes as itself; every other value becomes
 * an object whose first key is `$t` (see docs/codec.md for the table). A user object that has
 * its own `$t` key is wrapped in an `Object` tag, so every `$t` key in encoded text is ours.
 */
export const TAG_KEY = '$t'

export const Tags = {
  UNDEFINED: 'undefined',
  /** NaN, Infinity, -Infinity and -0: the numbers JSON cannot write. */
  NUMBER: 'Number',
  BIGINT: 'BigInt',
  DATE: 'Date',
  REGEXP: 'RegExp',
  MAP: 'Map',
  SET: 'Set',
  ERROR: 'Error',
  /** `new Number(1)`, `new String('a')`, `Object(1n)`: kept boxed. */
  BOXED: 'Boxed',
  /** An object with a null prototype; `v` holds its properties. */
  NULL_PROTO: 'NullProto',
  /** A plain object that has its own `$t` key; `v` holds its properties. */
  OBJECT: 'Object',
  /** An array with holes or non-index properties; `v` holds its own properties. */
  ARRAY: 'Array',
  ARRAY_BUFFER: 'ArrayBuffer',
  DATA_VIEW: 'DataView',
  BUFFER: 'Buffer',
} as const

/** A tagged value as it appears in parsed JSON. */
export interface Tagged {
  $t: string
  v?: unknown
  [field: string]: unknown
}

type TypedArrayConstructor =
  | Int8ArrayConstructor
  | Uint8ArrayConstructor
  | Uint8ClampedArrayConstructor
  | Int16ArrayConstructor
  | Uint16ArrayConstructor
  | Int32ArrayConstructor
  | Uint32ArrayConstructor
  | Float32ArrayConstructor
  | Float64ArrayConstructor
  | BigInt64ArrayConstructor
  | BigUint64ArrayConstructor
  | Float16ArrayConstructor

/** Typed array classes by tag (the class name); Float16Array joins where the runtime has it. */
export const TYPED_ARRAYS: ReadonlyMap<string, TypedArrayConstructor> = new Map(
  [
    Int8Array,
    Uint8Array,
    Uint8ClampedArray,
    Int16Array,
    Uint16Array,
    Int32Array,
    Uint32Array,
    Float32Array,
    Float64Array,
    BigInt64Array,
    BigUint64Array,
    Reflect.get(globalThis, 'Float16Array') as Float16ArrayConstructor | undefined,
  ]
    .filter((ctor) => ctor !== undefined)
    .map((ctor) => [ctor.name, ctor as TypedArrayConstructor]),
)
