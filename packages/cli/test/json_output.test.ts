/** `--json` renders payloads exactly as the dashboard API does (the same function). */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { toJson } from '../src/output/values.ts'

void test('payloads the codec decodes render as the API renders them', () => {
  const value = {
    big: 12345678901234567890n,
    map: new Map([['a', 1]]),
    set: new Set(['x']),
    bytes: Buffer.from('hi'),
    error: Object.assign(new Error('boom'), { code: 'E_X' }),
    at: new Date(0),
    nan: Number.NaN,
  }
  assert.deepEqual(JSON.parse(toJson(value)), {
    big: '12345678901234567890',
    map: [['a', 1]],
    set: ['x'],
    bytes: 'aGk=',
    error: { name: 'Error', message: 'boom', code: 'E_X' },
    at: '1970-01-01T00:00:00.000Z',
    nan: null,
  })
  assert.equal(toJson(undefined), 'null')
})
