/** `--concurrency` text (concurrency_text.ts): the three forms, and everything else refused. */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { concurrencyFromText } from '../src/index.ts'

void test('a number, adaptive, or adaptive with bounds', () => {
  assert.equal(concurrencyFromText('8'), 8)
  assert.equal(concurrencyFromText('10000'), 10_000)
  assert.equal(concurrencyFromText('adaptive'), 'adaptive')
  assert.deepEqual(concurrencyFromText('adaptive:2-32'), { mode: 'adaptive', min: 2, max: 32 })
})

void test('anything else is refused, naming the flag and the text', () => {
  for (const text of [
    '0',
    '-1',
    '1.5',
    '10001',
    '08',
    ' 8',
    'NaN',
    'adaptive:',
    'adaptive:8-2',
    'adaptive:0-4',
    'adaptive:1-10001',
    'Adaptive',
    '__proto__',
    '',
  ])
    assert.throws(
      () => concurrencyFromText(text, '--concurrency'),
      (error: Error & { code?: string }) => {
        assert.equal(error.code, 'E_INVALID_ARGUMENT')
        assert.ok(error.message.includes(`got ${JSON.stringify(text)}`), error.message)
        return true
      },
      text,
    )
})
