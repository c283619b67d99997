/**
 * parseWireMessage never throws, whatever a transport hands it: an object whose getters throw,
 * proxies (throwing, revoked, or answering differently on each read), text or bytes past
 * maxBytes, bytes that are not UTF-8, deep nesting, and any value at all. A poison message is
 * one refusal, never an exception in the consumer's loop — and never a message holding a
 * value other than the one checked.
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import { DEFAULT_MAX_MESSAGE_BYTES, parseWireMessage } from '@cairn/core/wire'

const FIXTURES = new URL('./fixtures/valid/', import.meta.url)
const text = (file: string) => readFileSync(new URL(file, FIXTURES), 'utf8')
const fixture = (file: string) => JSON.parse(text(file)) as Record<string, unknown>

function refused(input: unknown, options?: Parameters<typeof parseWireMessage>[1]) {
  const parsed = parseWireMessage(input, options)
  assert.equal(parsed.ok, false)
  assert.ok(!parsed.ok)
  return parsed.refusal
}

void describe('objects a transport decoded', () => {
  void test('a getter that throws is refused, not thrown', () => {
    const message = fixture('heartbeat.json')
    Object.defineProperty(message, 'runId', {
      enumerable: true,
      get() {
        throw new Error('boom')
      },
    })
    assert.deepEqual(refused(message), {
      code: 'E_WIRE_INVALID',
      path: '',
      reason: 'could not be read',
      type: null,
    })
  })

  void test('a getter on an item of a list that throws is refused', () => {
    const message = fixture('announce-fixed.json')
    const steps = ['a']
    Object.defineProperty(steps, 0, {
      get() {
        throw new Error('boom')
      },
    })
    message.steps = steps
    assert.equal(refused(message).reason, 'could not be read')
  })

  void test('proxies whose traps throw, and revoked proxies, are refused', () => {
    const message = fixture('task-full.json')
    for (const trap of ['get', 'ownKeys', 'getPrototypeOf', 'getOwnPropertyDescriptor']) {
      const proxy = new Proxy(message, {
        [trap]() {
          throw new Error(`${trap} trap`)
        },
      })
      assert.equal(refused(proxy).code, 'E_WIRE_INVALID', trap)
    }
    const { proxy, revoke } = Proxy.revocable(message, {})
    revoke()
    assert.equal(refused(proxy).reason, 'could not be read')
    const nested = { ...fixture('result-failed.json') }
    const revocable = Proxy.revocable({}, {})
    revocable.revoke()
    nested.outcome = revocable.proxy
    assert.equal(refused(nested).code, 'E_WIRE_INVALID')
  })

  void test('a list that answers differently on each read: the message holds what was checked', () => {
    const message = fixture('announce-fixed.json')
    let reads = 0
    message.capabilities = new Proxy(['gpu'], {
      get(target, key, receiver) {
        if (key === '0') return reads++ === 0 ? 'gpu' : 'g\u0000pu'
        return Reflect.get(target, key, receiver) as unknown
      },
    })
    const parsed = parseWireMessage(message, { expect: ['announce'] })
    assert.ok(parsed.ok)
    assert.deepEqual(parsed.message.capabilities, ['gpu'])
    assert.equal(Object.getPrototypeOf(parsed.message.capabilities), Array.prototype)
    assert.equal(reads, 1)
  })

  void test('a field whose getter answers differently on each read is read once', () => {
    const message = fixture('heartbeat.json')
    let reads = 0
    Object.defineProperty(message, 'runId', {
      enumerable: true,
      get: () => (reads++ === 0 ? 'run_1' : ''),
    })
    const parsed = parseWireMessage(message, { expect: ['heartbeat'] })
    assert.ok(parsed.ok)
    assert.equal(parsed.message.runId, 'run_1')
  })

  void test('a huge sparse list is refused without reading it', () => {
    const message = fixture('announce-fixed.json')
    message.steps = new Array(2 ** 32 - 1)
    assert.equal(refused(message).path, 'steps')
  })

  void test('class instances and hidden prototypes are not messages', () => {
    class Task {}
    assert.equal(refused(Object.assign(new Task(), fixture('task-full.json'))).path, '')
    const withProto = Object.create(fixture('heartbeat.json')) as object
    assert.equal(refused(withProto).path, '')
    for (const value of [new Date(), new Map(), [fixture('heartbeat.json')], () => 1])
      assert.equal(refused(value).path, '')
    // A null-prototype object with the fields is a message.
    const bare = Object.assign(Object.create(null) as object, fixture('heartbeat.json'))
    assert.equal(parseWireMessage(bare).ok, true)
  })

  void test('the message shares nothing with its input', () => {
    const input = fixture('announce-adaptive.json')
    const parsed = parseWireMessage(input)
    assert.ok(parsed.ok)
    ;(input.steps as string[]).push('later')
    ;(input.concurrency as Record<string, unknown>).limit = 99
    assert.deepEqual(parsed.message, fixture('announce-adaptive.json'))
  })

  void test('deep nesting anywhere is refused at the first level the shape does not allow', () => {
    let deep: unknown = 'x'
    for (let i = 0; i < 100_000; i++) deep = { a: deep }
    assert.equal(refused({ ...fixture('heartbeat.json'), extra: deep }).path, 'extra')
    assert.equal(refused({ ...fixture('heartbeat.json'), progress: deep }).path, 'progress')
    const failed = fixture('result-failed.json')
    assert.equal(
      refused({ ...failed, outcome: { status: 'failed', error: deep } }).path,
      'outcome.error.a',
    )
  })
})

void describe('text and bytes', () => {
  void test('bytes read as their UTF-8 text; a Buffer and a view into a larger buffer too', () => {
    const source = text('task-unicode-run-id.json')
    const expected = parseWireMessage(source)
    assert.ok(expected.ok)
    assert.deepEqual(parseWireMessage(new TextEncoder().encode(source)), expected)
    assert.deepEqual(parseWireMessage(Buffer.from(source)), expected)
    const padded = Buffer.from(`xx${source}yy`)
    assert.deepEqual(parseWireMessage(padded.subarray(2, padded.length - 2)), expected)
  })

  void test('bytes that are not UTF-8 are refused', () => {
    const valid = Buffer.from(text('heartbeat.json'))
    for (const bad of [
      [0xff],
      [0xc0, 0xaf], // overlong "/"
      [0xed, 0xa0, 0x80], // a surrogate encoded in UTF-8
      [0xf4, 0x90, 0x80, 0x80], // past U+10FFFF
      [0xe2, 0x82], // cut short
    ]) {
      const bytes = Buffer.concat([valid.subarray(0, 40), Buffer.from(bad), valid.subarray(40)])
      assert.deepEqual(refused(bytes), {
        code: 'E_WIRE_INVALID',
        path: '',
        reason: 'is not valid UTF-8',
        type: null,
      })
    }
  })

  void test('text and bytes past maxBytes are refused before they are parsed', () => {
    const source = text('heartbeat.json')
    const size = Buffer.byteLength(source)
    assert.equal(parseWireMessage(source, { maxBytes: size }).ok, true)
    assert.match(refused(source, { maxBytes: size - 1 }).reason, /larger than/)
    assert.match(refused(Buffer.from(source), { maxBytes: size - 1 }).reason, /larger than/)
    // Bytes, not characters: one "é" is two.
    assert.match(refused('"é"', { maxBytes: 3 }).reason, /larger than/)
    const huge = `{"v":1,"type":"heartbeat","x":"${'a'.repeat(DEFAULT_MAX_MESSAGE_BYTES)}"}`
    assert.match(refused(huge).reason, /larger than 16777216 bytes/)
    assert.match(refused(Buffer.from(huge)).reason, /larger than/)
  })

  void test('text that is not JSON, or JSON that is not an object, is refused', () => {
    for (const bad of ['', '{', '{"v":1,}', 'NaN', "{'v':1}", '\ufeff{}'])
      assert.equal(refused(bad).reason, 'is not JSON', bad)
    for (const value of ['null', '1', '"task"', '[]', 'true']) assert.equal(refused(value).path, '')
  })

  void test('deeply nested JSON text is refused, not a stack overflow', () => {
    const depth = 1_000_000
    assert.equal(refused('['.repeat(depth) + ']'.repeat(depth)).path, '')
    const deepObject = '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)
    assert.equal(refused(deepObject).code, 'E_WIRE_VERSION')
    const inField = text('heartbeat.json').replace('"at":', `"progress":${deepObject},"at":`)
    assert.equal(refused(inField).path, 'progress')
  })
})

void describe('anything at all', () => {
  void test('never throws on any value, any text, any bytes', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.anything({ withNullPrototype: true, withBoxedValues: true, withMap: true }),
          fc.string({ unit: 'binary' }),
          fc.uint8Array(),
          fc.json(),
        ),
        (input) => {
          const parsed = parseWireMessage(input)
          assert.equal(typeof parsed.ok, 'boolean')
        },
      ),
      { numRuns: 2000 },
    )
  })

  void test('a reader that expects some types refuses the others', () => {
    const refusal = refused(text('task-full.json'), { expect: ['result', 'heartbeat'] })
    assert.deepEqual(refusal, {
      code: 'E_WIRE_INVALID',
      path: 'type',
      reason: 'a task message is not expected here',
      type: 'task',
    })
    assert.equal(parseWireMessage(text('heartbeat.json'), { expect: ['heartbeat'] }).ok, true)
  })

  void test('options that are not what they should be are a refusal, not an exception', () => {
    const options = { expect: 5 } as unknown as { expect: ['task'] }
    assert.equal(parseWireMessage(text('task-full.json'), options).ok, false)
  })
})
