/**
 * Properties of the default codec over generated values: decode(encode(v)) deep-equals v (or
 * encode refuses it with a codec error), the text never holds a raw NUL or a lone surrogate,
 * and plain JSON is written exactly as JSON.stringify writes it.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import type { SerializedError } from '../src/contracts/codec.ts'
import { createCodec, deserializeError, serializeError } from '../src/codec/index.ts'
import { NotSerializableError, PayloadTooLargeError } from '../src/errors/payload_errors.ts'

const codec = createCodec()
const NUM_RUNS = 1000

/** Keys that stress the escaping and the object model, next to arbitrary text. */
const key = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: 'binary', maxLength: 8 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('$t', 'v', '__proto__', 'constructor', 'toJSON', 'length', '0'),
  },
)

/** Every kind of value fast-check knows that the codec promises to round-trip. */
const anything = fc.anything({
  key,
  maxDepth: 4,
  maxKeys: 5,
  stringUnit: 'binary',
  withBigInt: true,
  withBoxedValues: true,
  withDate: true,
  withMap: true,
  withNullPrototype: true,
  withObjectString: true,
  withSet: true,
  withSparseArray: true,
  withTypedArray: true,
})

const BUILTIN_ERRORS = [
  Error,
  TypeError,
  RangeError,
  SyntaxError,
  ReferenceError,
  EvalError,
  URIError,
]
const RESERVED_ERROR_KEYS = new Set(['name', 'message', 'stack', 'cause', 'code', 'errors'])

function define(target: object, props: Record<string, unknown>): void {
  for (const [k, value] of Object.entries(props)) {
    Object.defineProperty(target, k, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    })
  }
}

interface ErrorSpec {
  ctor: ErrorConstructor
  message: string
  code: string | null
  props: Record<string, unknown>
  cause: { value: unknown; assigned: boolean } | null
}

function buildError(spec: ErrorSpec): Error {
  const hidden = spec.cause !== null && !spec.cause.assigned
  const err = new spec.ctor(spec.message, hidden ? { cause: spec.cause?.value } : undefined)
  if (spec.cause?.assigned === true) err.cause = spec.cause.value
  if (spec.code !== null) define(err, { code: spec.code })
  define(err, spec.props)
  return err
}

/** Built-in Errors with codes, props and causes (Errors or any value, given or assigned). */
const errors: fc.Arbitrary<Error> = fc.letrec<{ error: Error }>((tie) => ({
  error: fc
    .record({
      ctor: fc.constantFrom(...BUILTIN_ERRORS),
      message: fc.string({ unit: 'binary' }),
      code: fc.option(fc.string(), { nil: null }),
      props: fc.dictionary(
        key.filter((k) => !RESERVED_ERROR_KEYS.has(k)),
        anything,
        { maxKeys: 3 },
      ),
      cause: fc.option(
        fc.record({
          value: fc.oneof({ depthSize: 'small' }, anything, tie('error')),
          assigned: fc.boolean(),
        }),
        { nil: null, depthSize: 'small' },
      ),
    })
    .map(buildError),
})).error

const aggregates = fc
  .tuple(fc.array(errors, { maxLength: 3 }), fc.string())
  .map(([list, message]) => new AggregateError(list, message))

/** Anything, with errors mixed in at any depth. */
const payloads = fc.oneof(
  { weight: 3, arbitrary: anything },
  { weight: 1, arbitrary: fc.array(fc.oneof(errors, aggregates, anything), { maxLength: 4 }) },
  { weight: 1, arbitrary: fc.dictionary(key, fc.oneof(errors, anything), { maxKeys: 4 }) },
)

/** JSON.stringify writes -0 as 0, so the codec tags it: such values are not written alike. */
function hasNegativeZero(value: unknown): boolean {
  if (Object.is(value, -0)) return true
  return typeof value === 'object' && value !== null && Object.values(value).some(hasNegativeZero)
}

function isCodecRefusal(err: unknown): boolean {
  return err instanceof NotSerializableError || err instanceof PayloadTooLargeError
}

void test('decode(encode(v)) deep-equals v, or encode refuses with a codec error', () => {
  fc.assert(
    fc.property(payloads, (value) => {
      let text: string
      try {
        text = codec.encode(value)
      } catch (err) {
        assert.ok(isCodecRefusal(err), `unexpected ${String(err)}`)
        return
      }
      assert.deepStrictEqual(codec.decode(text), value)
    }),
    { numRuns: NUM_RUNS },
  )
})

void test('every generated payload is accepted (nothing generated is unsupported)', () => {
  fc.assert(
    fc.property(payloads, (value) => {
      assert.doesNotThrow(() => codec.encode(value))
    }),
    { numRuns: NUM_RUNS },
  )
})

void test('the text never holds a raw NUL or a lone surrogate', () => {
  const strings = fc.string({ unit: 'binary' })
  const texty = fc.oneof(strings, fc.dictionary(strings, strings), fc.array(strings), anything)
  fc.assert(
    fc.property(texty, (value) => {
      const text = codec.encode(value)
      assert.ok(!text.includes('\0'))
      assert.ok(text.isWellFormed())
    }),
    { numRuns: NUM_RUNS },
  )
})

void test('plain JSON without $t keys or -0 is written exactly as JSON.stringify writes it', () => {
  fc.assert(
    fc.property(fc.jsonValue(), (value) => {
      const json = JSON.stringify(value)
      fc.pre(!json.includes('"$t"') && !hasNegativeZero(value))
      assert.equal(codec.encode(value), json)
    }),
    { numRuns: NUM_RUNS },
  )
})

void test('Dates keep their time and read as toISOString in the text', () => {
  fc.assert(
    fc.property(fc.date({ noInvalidDate: false }), (date) => {
      const text = codec.encode(date)
      const iso = Number.isNaN(date.getTime()) ? null : date.toISOString()
      assert.equal(text, JSON.stringify({ $t: 'Date', v: iso }))
      assert.deepStrictEqual(codec.decode(text), date)
    }),
    { numRuns: NUM_RUNS },
  )
})

void test('serializeError then deserializeError keeps name, message, stack, code and props', () => {
  fc.assert(
    fc.property(errors, (err) => {
      const stored = codec.encode(serializeError(err), 'error')
      const back = deserializeError(codec.decode(stored) as SerializedError) as Error &
        Record<string, unknown>
      assert.equal(Object.getPrototypeOf(back), Object.getPrototypeOf(err))
      assert.equal(back.name, err.name)
      assert.equal(back.message, err.message)
      assert.equal(back.stack, err.stack)
      assert.equal(back.code, (err as Error & { code?: unknown }).code)
      for (const k of Object.keys(err)) {
        if (!RESERVED_ERROR_KEYS.has(k))
          assert.deepStrictEqual(back[k], (err as unknown as Record<string, unknown>)[k])
      }
      assert.equal(Object.hasOwn(back, 'cause'), Object.hasOwn(err, 'cause'))
    }),
    { numRuns: NUM_RUNS },
  )
})
