/** The default codec: what round-trips, the readable form, what is refused and where, limits. */
import assert from 'node:assert/strict'
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import { test } from 'node:test'
import { runInNewContext } from 'node:vm'
import type { PayloadTransform, SerializedError } from '../src/contracts/codec.ts'
import {
  createCodec,
  deserializeError,
  JsonCodec,
  MAX_CAUSE_DEPTH,
  MAX_MAX_DEPTH,
  MAX_STACK_CHARS,
  serializeError,
} from '../src/codec/index.ts'
import { FatalError, RetryableError } from '../src/errors/workflow_errors.ts'
import { InvalidArgumentError } from '../src/errors/api_errors.ts'
import { NotSerializableError, PayloadTooLargeError } from '../src/errors/payload_errors.ts'

const codec = createCodec()

function roundTrip(value: unknown, c: JsonCodec = codec): unknown {
  return c.decode(c.encode(value))
}

function assertRoundTrips(value: unknown): void {
  assert.deepStrictEqual(roundTrip(value), value)
}

/** Asserts encode throws NotSerializableError at exactly `path`. */
function assertRejectedAt(value: unknown, path: string, reason?: RegExp): void {
  assert.throws(
    () => codec.encode(value, 'result of step "s"'),
    (err: unknown) => {
      assert.ok(
        err instanceof NotSerializableError,
        `expected NotSerializableError, got ${String(err)}`,
      )
      assert.equal(err.path, path)
      assert.equal(err.code, 'E_NOT_SERIALIZABLE')
      assert.equal(err.details.path, path)
      assert.match(err.message, /result of step "s"/)
      if (reason !== undefined) assert.match(err.message, reason)
      return true
    },
  )
}

function nested(levels: number, leaf: unknown, wrap: (inner: unknown) => unknown): unknown {
  let value = leaf
  for (let i = 0; i < levels; i++) value = wrap(value)
  return value
}

/** An array of `length` with only the `present` indices defined, the rest holes. */
function withHoles(length: number, present: Record<number, unknown>): unknown[] {
  return Object.assign(new Array<unknown>(length), present)
}

function withProps<T extends object>(target: T, props: Record<string, unknown>): T {
  for (const [key, value] of Object.entries(props)) {
    Object.defineProperty(target, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    })
  }
  return target
}

void test('plain JSON encodes as itself, readable', () => {
  assert.equal(codec.encode({ a: 1 }), '{"a":1}')
  const value = { i: 3, ok: true, s: 'x', n: null, list: [1, 'two', { three: 3.5 }], e: {}, ea: [] }
  assert.equal(codec.encode(value), JSON.stringify(value))
  for (const v of ['text', 0, 1.5, -7, true, false, null, [], {}])
    assert.equal(codec.encode(v), JSON.stringify(v))
  assertRoundTrips(value)
})

void test('special values are tagged as documented', () => {
  const cases: Array<[unknown, string]> = [
    [undefined, '{"$t":"undefined"}'],
    [Number.NaN, '{"$t":"Number","v":"NaN"}'],
    [Infinity, '{"$t":"Number","v":"Infinity"}'],
    [-Infinity, '{"$t":"Number","v":"-Infinity"}'],
    [-0, '{"$t":"Number","v":"-0"}'],
    [123n, '{"$t":"BigInt","v":"123"}'],
    [new Date('2024-01-01T00:00:00.000Z'), '{"$t":"Date","v":"2024-01-01T00:00:00.000Z"}'],
    [new Date(Number.NaN), '{"$t":"Date","v":null}'],
    [/a\/b+/gi, '{"$t":"RegExp","source":"a\\\\/b+","flags":"gi"}'],
    [new Map([['k', 1]]), '{"$t":"Map","v":[["k",1]]}'],
    [new Set([1, 'a']), '{"$t":"Set","v":[1,"a"]}'],
    [new Uint8Array([1, 2, 3]), '{"$t":"Uint8Array","v":"AQID"}'],
    [Buffer.from('hi'), '{"$t":"Buffer","v":"aGk="}'],
    [new Number(2), '{"$t":"Boxed","v":2}'],
    [withHoles(3, { 0: 1, 2: 3 }), '{"$t":"Array","length":3,"v":{"0":1,"2":3}}'],
    [{ $t: 'Date', v: 'x' }, '{"$t":"Object","v":{"$t":"Date","v":"x"}}'],
  ]
  for (const [value, text] of cases) {
    assert.equal(codec.encode(value), text)
    assert.deepStrictEqual(codec.decode(text), value)
  }
  assert.equal(
    codec.encode({ when: undefined, list: [undefined] }),
    '{"when":{"$t":"undefined"},"list":[{"$t":"undefined"}]}',
  )
})

void test('numbers: NaN, ±Infinity and -0 anywhere, and ordinary numbers as JSON numbers', () => {
  assertRoundTrips([
    Number.NaN,
    Infinity,
    -Infinity,
    -0,
    0,
    1e308,
    5e-324,
    Number.MAX_SAFE_INTEGER,
    -1.5,
  ])
  assert.ok(Object.is(roundTrip(-0), -0))
  assert.ok(Object.is((roundTrip({ z: -0 }) as { z: number }).z, -0))
  assertRoundTrips({ n: new Map([[Number.NaN, -0]]) })
})

void test('BigInt, Date and RegExp round-trip', () => {
  assertRoundTrips([0n, -1n, 2n ** 200n, -(2n ** 70n)])
  const dates = [
    0, -1, 1_700_000_000_123, -62_167_219_200_000, 8.64e15, -8.64e15, 253_402_300_800_000,
  ]
  assertRoundTrips(dates.map((t) => new Date(t)))
  assertRoundTrips(new Date(Number.NaN))
  assert.equal(codec.encode(new Date(-1)), '{"$t":"Date","v":"1969-12-31T23:59:59.999Z"}')
  assert.equal(codec.encode(new Date(8.64e15)), '{"$t":"Date","v":"+275760-09-13T00:00:00.000Z"}')
  const sticky = /x(?<name>y)\//dgimsuy
  sticky.lastIndex = 4
  assertRoundTrips([/a/, /[/]\\/u, /[\p{L}--[a-z]]/v, sticky, new RegExp('')])
  assert.equal((roundTrip(sticky) as RegExp).lastIndex, 4)
})

void test('Map and Set keep order, any keys, nested values', () => {
  const key = { id: 1 }
  const map = new Map<unknown, unknown>([
    ['b', 1],
    ['a', new Set([1, 2n, undefined])],
    [key, new Map([[new Date(0), [1, 2]]])],
    [undefined, null],
  ])
  assertRoundTrips(map)
  assert.deepStrictEqual([...(roundTrip(map) as Map<unknown, unknown>).keys()].slice(0, 2), [
    'b',
    'a',
  ])
  assertRoundTrips(new Set([{ a: 1 }, { a: 1 }, [1], 'x']))
  assertRoundTrips({ empty: [new Map(), new Set()] })
})

void test('ArrayBuffer, every typed array, DataView and Buffer round-trip as base64', () => {
  const bytes = [0, 1, 2, 127, 128, 200, 255, 7]
  const values: unknown[] = [
    new Uint8Array(bytes).buffer,
    new Int8Array([-128, 0, 127]),
    new Uint8Array(bytes),
    new Uint8ClampedArray([0, 255]),
    new Int16Array([-32768, 32767]),
    new Uint16Array([65535]),
    new Int32Array([-(2 ** 31), 2 ** 31 - 1]),
    new Uint32Array([2 ** 32 - 1]),
    new Float32Array([1.5, Number.NaN, -Infinity]),
    new Float64Array([Math.PI, -0, Number.NaN]),
    new BigInt64Array([-(2n ** 63n), 2n ** 63n - 1n]),
    new BigUint64Array([2n ** 64n - 1n]),
    new DataView(new Uint8Array(bytes).buffer),
    Buffer.from('héllo'),
    new Uint8Array(0),
    new ArrayBuffer(0),
  ]
  const Float16 = Reflect.get(globalThis, 'Float16Array') as Float16ArrayConstructor | undefined
  if (Float16 !== undefined) values.push(new Float16([0.5, 65504]))
  for (const value of values) assertRoundTrips(value)
  assertRoundTrips({ nested: values })
})

void test('a view writes only the bytes it covers, never the rest of its buffer', () => {
  const secret = new Uint8Array([9, 9, 1, 2, 9, 9])
  const view = secret.subarray(2, 4)
  assert.equal(codec.encode(view), '{"$t":"Uint8Array","v":"AQI="}')
  assertRoundTrips(view)
  const pooled = Buffer.from('ab')
  assert.equal(codec.encode(pooled), '{"$t":"Buffer","v":"YWI="}')
  const dataView = new DataView(secret.buffer, 1, 2)
  assert.deepStrictEqual([...new Uint8Array((roundTrip(dataView) as DataView).buffer)], [9, 1])
})

void test('boxed primitives stay boxed', () => {
  assertRoundTrips([
    new Number(1),
    new Number(Number.NaN),
    new String('ab'),
    new Boolean(false),
    Object(5n),
  ])
})

void test('objects with a null prototype keep it', () => {
  const dict = withProps(Object.create(null) as object, { a: 1, $t: 'x', ['__proto__']: 2 })
  const back = roundTrip({ dict }) as { dict: object }
  assert.equal(Object.getPrototypeOf(back.dict), null)
  assert.deepStrictEqual(back, { dict })
})

void test('sparse arrays keep their holes; arrays keep non-index properties', () => {
  const holes = withHoles(5, { 1: 1, 3: undefined })
  const back = roundTrip(holes) as unknown[]
  assert.equal(back.length, 5)
  assert.ok(!(0 in back) && 3 in back && !(4 in back))
  assertRoundTrips(holes)
  const huge: unknown[] = []
  huge[1_000_000_000] = 'end'
  assertRoundTrips(huge)
  assertRoundTrips(withProps([1, 2], { extra: 'x', ['__proto__']: 1 }))
  assertRoundTrips('a-b-c'.match(/b/))
  assertRoundTrips(new Array(3))
})

void test('keys named __proto__, constructor and toJSON are plain data', () => {
  const value = withProps(
    {},
    { ['__proto__']: { a: 1 }, constructor: 'c', toJSON: 5, hasOwnProperty: 1 },
  )
  assertRoundTrips(value)
  assertRoundTrips({ deep: value, when: new Date(0) })
  const parsed: unknown = JSON.parse('{"__proto__":{"polluted":true}}')
  assertRoundTrips(parsed)
  assert.equal(({} as Record<string, unknown>).polluted, undefined)
})

void test('a user $t key is escaped, so decode never misreads user data', () => {
  const lookalikes = [
    { $t: 'Date', v: '2024-01-01T00:00:00.000Z' },
    { $t: 'undefined' },
    { $t: 'Object', v: { $t: 'Map', v: [] } },
    { $t: 5 },
    { nested: [{ $t: 'BigInt', v: '1' }], m: new Map([['$t', { $t: 'Set', v: [] }]]) },
    Object.assign([1], { $t: 'Date', v: 'x' }),
    Object.assign(Object.create(null) as object, { $t: 'Array', inner: { $t: 'Error' } }),
    Object.assign(new Error('e'), { $t: 'undefined' }),
  ]
  for (const value of lookalikes) assertRoundTrips(value)
  assert.equal(codec.encode({ $t: 1 }), '{"$t":"Object","v":{"$t":1}}')
  // Strings that spell a tag are only strings (the revive pass runs but changes nothing).
  assertRoundTrips(['"$t"', '{"$t":"undefined"}', { s: '{"$t":"Date","v":"x"}' }, { '"$t"': 1 }])
})

void test('repeated references (a DAG) are copied, not refused', () => {
  const shared = { x: 1 }
  const value = { a: shared, b: [shared, shared], m: new Map([[shared, shared]]) }
  assertRoundTrips(value)
  const back = roundTrip(value) as typeof value
  assert.notEqual(back.a, back.b[0])
  const date = new Date(0)
  assertRoundTrips([date, date])
})

void test('functions, symbols, cycles and class instances are refused with their path', () => {
  assertRejectedAt({ items: [0, 1, 2, { callback: () => 1 }] }, '$.items[3].callback', /function/)
  assertRejectedAt(() => 1, '$', /function/)
  assertRejectedAt({ s: Symbol('s') }, '$.s', /symbol/)
  assertRejectedAt({ deep: { [Symbol('id')]: 1 } }, '$.deep[Symbol(id)]', /symbol-keyed/)
  assertRejectedAt({ list: Object.assign([1], { [Symbol('k')]: 1 }) }, '$.list[Symbol(k)]')
  assertRejectedAt({ 'odd key': { 'a.b': [null, () => 1] } }, '$["odd key"]["a.b"][1]')
  class Point {
    x = 1
  }
  assertRejectedAt({ at: [new Point()] }, '$.at[0]', /instance of Point/)
  assertRejectedAt({ p: Promise.resolve() }, '$.p', /Promise/)
  assertRejectedAt({ w: new WeakMap() }, '$.w', /WeakMap/)
  assertRejectedAt({ u: new URL('https://example.com') }, '$.u', /URL/)
  assertRejectedAt({ sab: new SharedArrayBuffer(1) }, '$.sab')
  class MyList extends Array {}
  assertRejectedAt({ l: MyList.from([1]) }, '$.l', /MyList/)
  class MyMap extends Map {}
  assertRejectedAt({ m: new MyMap() }, '$.m', /MyMap/)
  assertRejectedAt({ s: Object(Symbol('boxed')) as object }, '$.s', /Symbol/)
  assertRejectedAt(
    { v: runInNewContext('({ a: 1 })') as object },
    '$.v',
    /Object from another realm/,
  )
})

void test('cycles are refused at the reference that closes them', () => {
  const a: Record<string, unknown> = { name: 'a' }
  a.b = { list: [1, a] }
  assertRejectedAt(a, '$.b.list[1]', /circular/)
  const self: unknown[] = []
  self.push(self)
  assertRejectedAt(self, '$[0]', /circular/)
  const map = new Map<string, unknown>()
  map.set('me', map)
  assertRejectedAt({ map }, '$.map.get("me")', /circular/)
  const set = new Set<unknown>()
  set.add(new Date(0)).add(set)
  assertRejectedAt({ set }, '$.set.values()[1]', /circular/)
  const err = new Error('loop')
  err.cause = err
  assertRejectedAt({ err }, '$.err.cause', /circular/)
})

void test('Map keys and values, Set elements and Error props name their path', () => {
  assertRejectedAt({ m: new Map([['k', () => 1]]) }, '$.m.get("k")')
  assertRejectedAt({ m: new Map([[7, { f: () => 1 }]]) }, '$.m.get(7).f')
  assertRejectedAt({ m: new Map([[{}, Symbol('v')]]) }, '$.m.values()[0]')
  assertRejectedAt({ m: new Map([[Symbol('k'), 1]]) }, '$.m.keys()[0]')
  assertRejectedAt({ s: new Set([1, () => 1]) }, '$.s.values()[1]')
  assertRejectedAt({ e: Object.assign(new Error('x'), { callback: () => 1 }) }, '$.e.callback')
  assertRejectedAt({ e: new Error('x', { cause: { f: () => 1 } }) }, '$.e.cause.f')
})

void test('properties added to built-ins are refused rather than lost', () => {
  assertRejectedAt({ d: Object.assign(new Date(0), { tz: 'UTC' }) }, '$.d.tz', /Date/)
  assertRejectedAt({ m: Object.assign(new Map(), { size2: 1 }) }, '$.m.size2', /Map/)
  assertRejectedAt([Object.assign(/x/, { note: 1 })], '$[0].note', /RegExp/)
  assertRejectedAt(Object.assign(new String('ab'), { extra: 1 }), '$.extra', /String object/)
})

void test('nesting deeper than maxDepth is refused without overflowing the stack', () => {
  const deepArrays = nested(100_000, 0, (inner) => [inner])
  const deepObjects = nested(100_000, 0, (inner) => ({ d: inner }))
  const deepMaps = nested(100_000, 0, (inner) => new Map([[1, inner]]))
  for (const value of [deepArrays, deepObjects, deepMaps]) {
    assert.throws(
      () => codec.encode(value),
      (err: unknown) => err instanceof NotSerializableError && /deeper than 512/.test(err.message),
    )
  }
  assert.throws(
    () => codec.encode(deepObjects),
    (err: NotSerializableError) => err.path === '$' + '.d'.repeat(512),
  )
})

void test('the largest maxDepth allowed does not exhaust the stack', () => {
  const deepest = createCodec({ maxDepth: MAX_MAX_DEPTH })
  const wraps: Array<(inner: unknown) => unknown> = [
    (inner) => [inner],
    (inner) => ({ d: inner }),
    (inner) => new Map([[{ k: 1 }, inner]]),
    (inner) => new Set([inner]),
    (inner) => new Error('e', { cause: inner }),
  ]
  for (const wrap of wraps) {
    const value = nested(MAX_MAX_DEPTH - 1, new Date(0), wrap)
    // Compared by their encodings: node:assert's deepStrictEqual recurses a frame or more per
    // level and itself overflows at this depth on some Node builds (Map and Set levels most).
    const text = deepest.encode(value)
    assert.equal(deepest.encode(roundTrip(value, deepest)), text)
    assert.throws(() => deepest.encode(nested(MAX_MAX_DEPTH + 5, 0, wrap)), NotSerializableError)
  }
})

void test('maxDepth counts nested objects: exactly maxDepth levels pass', () => {
  assertRoundTrips(nested(512, 'leaf', (inner) => [inner]))
  assertRoundTrips(nested(511, new Date(0), (inner) => ({ d: inner })))
  assert.throws(() => codec.encode(nested(513, 'leaf', (inner) => [inner])), NotSerializableError)
  const shallow = createCodec({ maxDepth: 3 })
  assert.deepStrictEqual(roundTrip({ a: { b: {} } }, shallow), { a: { b: {} } })
  assert.throws(
    () => shallow.encode({ a: { b: { c: {} } } }),
    (err: NotSerializableError) => err.path === '$.a.b.c',
  )
  assert.throws(() => shallow.encode({ a: { b: { c: new Date(0) } } }), NotSerializableError)
})

void test('payloads over maxBytes (UTF-8) are refused with PayloadTooLargeError', () => {
  const small = createCodec({ maxBytes: 10 })
  assert.equal(small.encode('12345678'), '"12345678"')
  assert.throws(
    () => small.encode('123456789', 'input of workflow "w"'),
    (err: unknown) => {
      assert.ok(err instanceof PayloadTooLargeError)
      assert.equal(err.code, 'E_PAYLOAD_TOO_LARGE')
      assert.equal(err.sizeBytes, 11)
      assert.equal(err.limitBytes, 10)
      assert.match(err.message, /input of workflow "w" is 11 bytes/)
      return true
    },
  )
  // Three characters, nine bytes: the limit is on UTF-8 bytes, not characters.
  assert.equal(small.encode('€€'), '"€€"')
  assert.throws(
    () => small.encode('€€€'),
    (err: PayloadTooLargeError) => err.sizeBytes === 11,
  )
  assert.throws(() => small.encode({ when: new Date(0) }), PayloadTooLargeError)
  const defaults = new JsonCodec()
  assert.equal(defaults.maxBytes, 4 * 1024 * 1024)
  assert.throws(() => defaults.encode('x'.repeat(4 * 1024 * 1024)), PayloadTooLargeError)
})

void test('a shared subtree repeated 2^40 times is refused quickly, not expanded', () => {
  let value: unknown = [1]
  for (let i = 0; i < 40; i++) value = [value, value]
  const started = Date.now()
  assert.throws(() => codec.encode(value), PayloadTooLargeError)
  assert.throws(() => codec.encode({ d: new Date(0), value }), PayloadTooLargeError)
  assert.ok(Date.now() - started < 20_000)
})

void test('NUL bytes and lone surrogates round-trip and are escaped in the text', () => {
  const strings = [
    '\0',
    'a\0b',
    '\ud800',
    '\udc00',
    'x\ud83dy',
    '\udfff\ud800',
    '😀',
    '\u2028\u2029',
    '\x7f\x1f',
  ]
  const value = { strings, [strings.join('')]: 'key', nested: new Map([['\0', '\ud800']]) }
  const text = codec.encode(value)
  assert.ok(!text.includes('\0'))
  assert.ok(text.isWellFormed())
  assert.match(text, /\\u0000/)
  assert.match(text, /\\ud800/)
  assertRoundTrips(value)
  for (const s of strings) assertRoundTrips(s)
})

void test('decode revives only what encode tagged; unknown tags are an error', () => {
  assert.deepStrictEqual(codec.decode('{"a":[1,{"b":"$t"}]}'), { a: [1, { b: '$t' }] })
  assert.throws(() => codec.decode('{"$t":"Nope"}'), TypeError)
})

void test('Errors inside payloads keep class, name, message, stack, code, cause and props', () => {
  const inner = new TypeError('inner')
  const err = withProps(new RangeError('outer', { cause: inner }), {
    code: 'E_RANGE',
    retryAfterMs: 10,
  })
  const back = roundTrip({ err }) as { err: RangeError & { code: string; retryAfterMs: number } }
  assert.deepStrictEqual(back, { err })
  assert.ok(back.err instanceof RangeError)
  assert.equal(back.err.stack, err.stack)
  assert.equal(back.err.code, 'E_RANGE')
  assert.ok(back.err.cause instanceof TypeError)
  assertRoundTrips([
    new Error(),
    new Error(''),
    new SyntaxError('s', { cause: undefined }),
    new URIError('u'),
  ])
  assertRoundTrips(
    withProps(new Error('assigned cause'), { cause: { why: 1 }, details: new Map([[1, 2]]) }),
  )
  assertRoundTrips(new AggregateError([new Error('a'), 'b'], 'both', { cause: 'c' }))
  assertRoundTrips(withProps(new Error('odd'), { code: 42, $t: 'x', ['__proto__']: 1 }))
})

void test('an Error subclass comes back as Error with its name, code and fields', () => {
  const err = new RetryableError('later', { retryAfterMs: 5, details: { id: 'x' } })
  const back = roundTrip(err) as Error & Record<string, unknown>
  assert.ok(back instanceof Error)
  assert.equal(back.name, 'RetryableError')
  assert.equal(back.message, 'later')
  assert.equal(back.code, 'E_RETRYABLE')
  assert.equal(back.retryAfterMs, 5)
  assert.deepStrictEqual(back.details, { id: 'x' })
  assert.equal(back.stack, err.stack)
})

void test('long stacks are cut to MAX_STACK_CHARS', () => {
  const err = new Error('deep')
  err.stack = `Error: deep\n${'    at frame (file.ts:1:1)\n'.repeat(2000)}`
  const back = roundTrip(err) as Error
  assert.ok((back.stack as string).length <= MAX_STACK_CHARS)
  assert.match(back.stack as string, /stack truncated/)
  assert.ok((serializeError(err).stack as string).length <= MAX_STACK_CHARS)
  err.stack = `${'x'.repeat(MAX_STACK_CHARS - 27)}😀${'y'.repeat(100)}`
  assert.ok((serializeError(err).stack as string).isWellFormed())
})

void test('transform hook: applied after encoding and before decoding (encryption at rest)', () => {
  const key = randomBytes(32)
  const aesGcm: PayloadTransform = {
    encode(text) {
      const iv = randomBytes(12)
      const cipher = createCipheriv('aes-256-gcm', key, iv)
      const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()])
      return `v1.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`
    },
    decode(text) {
      const raw = Buffer.from(text.slice('v1.'.length), 'base64')
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12))
      decipher.setAuthTag(raw.subarray(12, 28))
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8')
    },
  }
  const sealed = createCodec({ transform: aesGcm })
  const value = { card: '4111', at: new Date(0), tags: new Set(['a']) }
  const text = sealed.encode(value)
  assert.match(text, /^v1\./)
  assert.ok(!text.includes('4111'))
  assert.deepStrictEqual(sealed.decode(text), value)
  assert.deepStrictEqual(sealed.decode(sealed.encode({ i: 1 })), { i: 1 })
})

void test('transform output is checked: no NUL or lone surrogate, and within maxBytes', () => {
  const nul = createCodec({ transform: { encode: (t) => `${t}\0`, decode: (t) => t.slice(0, -1) } })
  assert.throws(() => nul.encode(1), TypeError)
  const lone = createCodec({
    transform: { encode: (t) => `${t}\ud800`, decode: (t) => t.slice(0, -1) },
  })
  assert.throws(() => lone.encode(1), TypeError)
  const growing = createCodec({
    maxBytes: 20,
    transform: { encode: (t) => t.repeat(4), decode: (t) => t.slice(0, t.length / 4) },
  })
  assert.equal(growing.encode(1), '1111')
  assert.throws(() => growing.encode('abcd'), PayloadTooLargeError)
})

void test('invalid options are refused', () => {
  const invalid = [
    { maxBytes: 0 },
    { maxBytes: 1.5 },
    { maxDepth: -1 },
    { maxDepth: Number.NaN },
    { maxDepth: 1001 },
  ]
  for (const options of invalid) {
    assert.throws(() => createCodec(options), InvalidArgumentError)
  }
  assert.throws(() => createCodec({ transform: {} as PayloadTransform }), InvalidArgumentError)
})

void test('serializeError records name, message, stack, code, cause chain and props', () => {
  const root = new Error('disk full')
  const mid = withProps(new TypeError('write failed', { cause: root }), {
    code: 'ENOSPC',
    errno: -28,
  })
  const top = new FatalError('step failed', { cause: mid, details: { file: '/tmp/x' } })
  const s = serializeError(top)
  assert.equal(s.name, 'FatalError')
  assert.equal(s.message, 'step failed')
  assert.equal(s.code, 'E_FATAL')
  assert.equal(s.stack, top.stack)
  assert.deepStrictEqual(s.props, { details: { file: '/tmp/x' } })
  const c1 = s.cause as SerializedError
  assert.equal(c1.name, 'TypeError')
  assert.equal(c1.code, 'ENOSPC')
  assert.deepStrictEqual(c1.props, { errno: -28 })
  assert.equal((c1.cause as SerializedError).message, 'disk full')
})

void test('deserializeError restores an Error with name, code, cause chain and props', () => {
  const original = new FatalError('step failed', {
    cause: withProps(new TypeError('write failed', { cause: 'low level' }), { code: 'ENOSPC' }),
    details: { at: new Date(0) },
  })
  const stored = codec.encode(serializeError(original), 'error')
  const back = deserializeError(codec.decode(stored) as SerializedError) as Error &
    Record<string, unknown>
  assert.ok(back instanceof Error)
  assert.equal(back.name, 'FatalError')
  assert.equal(back.message, 'step failed')
  assert.equal(back.code, 'E_FATAL')
  assert.equal(back.stack, original.stack)
  assert.deepStrictEqual(back.details, { at: new Date(0) })
  const cause = back.cause as TypeError & { code: string }
  assert.ok(cause instanceof TypeError)
  assert.equal(cause.code, 'ENOSPC')
  assert.equal(cause.cause, 'low level')
  assert.equal(String(back), 'FatalError: step failed')
})

void test('cause chains are cut at MAX_CAUSE_DEPTH, cycles included', () => {
  const loop = new Error('loop')
  loop.cause = loop
  let s: SerializedError | undefined = serializeError(loop)
  let depth = 0
  while (s?.cause !== undefined && 'name' in s.cause) {
    s = s.cause
    depth++
  }
  assert.equal(depth, MAX_CAUSE_DEPTH)
  assert.equal(s?.name, 'CauseChainTruncated')
  assert.doesNotThrow(() => codec.encode(serializeError(loop)))
})

void test('non-Error thrown values are recorded as NonErrorThrown, keeping the value', () => {
  const cases: Array<[unknown, string]> = [
    ['plain string', 'plain string'],
    [{ reason: 'x' }, '{"reason":"x"}'],
    [undefined, 'undefined'],
    [42n, '42'],
    [null, 'null'],
  ]
  for (const [thrown, message] of cases) {
    const s = serializeError(thrown)
    assert.equal(s.name, 'NonErrorThrown')
    assert.equal(s.message, message)
    assert.deepStrictEqual(s.props, { value: thrown })
    const back = deserializeError(codec.decode(codec.encode(s)) as SerializedError) as Error & {
      value: unknown
    }
    assert.ok(back instanceof Error)
    assert.deepStrictEqual(back.value, thrown)
  }
  const fn = serializeError(function thrower() {})
  assert.equal(fn.message, 'function thrower')
  assert.equal(fn.props, undefined)
})

void test('serializeError never throws: unencodable props and throwing getters are described', () => {
  const err = withProps(new Error('x'), { callback: () => 1, ok: 1 })
  Object.defineProperty(err, 'bad', {
    enumerable: true,
    get() {
      throw new Error('getter broke')
    },
  })
  const s = serializeError(err)
  assert.deepStrictEqual(s.props, {
    callback: '[not serializable: function callback]',
    ok: 1,
    bad: '[reading bad threw: Error: getter broke]',
  })
  assert.doesNotThrow(() => codec.encode(s))
  const hostile = new Proxy(new Error('p'), {
    ownKeys() {
      throw new Error('no keys')
    },
  })
  assert.equal(serializeError(hostile).name, 'Error')
  const revoked = Proxy.revocable({}, {})
  revoked.revoke()
  assert.equal(serializeError(revoked.proxy).name, 'Error')
  assert.deepStrictEqual(serializeError(new Error('c', { cause: Symbol('s') })).cause, {
    value: '[not serializable: Symbol(s)]',
  })
})

void test('deserializeError accepts records with a value cause and AggregateError errors', () => {
  const back = deserializeError({
    name: 'AggregateError',
    message: 'm',
    cause: { value: 3 },
    props: { errors: [1] },
  })
  assert.ok(back instanceof AggregateError)
  assert.deepStrictEqual(back.errors, [1])
  assert.equal(back.cause, 3)
  const minimal = deserializeError({ name: 'Error', message: 'only' })
  assert.equal(minimal.stack, 'Error: only')
  const agg = serializeError(new AggregateError([new Error('a')], 'all'))
  const restored = deserializeError(
    codec.decode(codec.encode(agg)) as SerializedError,
  ) as AggregateError
  assert.equal((restored.errors[0] as Error).message, 'a')
})

void test('a value whose own code throws while read is E_NOT_SERIALIZABLE at its path, never the raw error', () => {
  const codec = new JsonCodec()
  const getter = {
    ok: 1,
    nested: {
      get secret(): string {
        throw new Error('no access')
      },
    },
  }
  const trap = {
    p: new Proxy(
      {},
      {
        ownKeys() {
          throw new Error('trap')
        },
      },
    ),
  }
  const sparse: unknown[] = [1]
  Object.defineProperty(sparse, '5', {
    enumerable: true,
    get() {
      throw new Error('index getter')
    },
  })
  for (const [value, path] of [
    [getter, /\$\.nested\.secret/],
    [trap, /\$\.p\b/],
    [{ list: sparse }, /\$\.list\[5\]/],
  ] as const) {
    assert.throws(
      () => codec.encode(value, 'signal payload'),
      (error: Error & { code?: string }) =>
        error.code === 'E_NOT_SERIALIZABLE' &&
        path.test(error.message) &&
        /reading it threw/.test(error.message),
    )
  }
})
