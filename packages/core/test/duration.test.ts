import { test } from 'node:test'
import assert from 'node:assert/strict'
import { toMilliseconds } from '../src/util/duration.ts'

void test('short units and plain milliseconds', () => {
  assert.equal(toMilliseconds(1500), 1500)
  assert.equal(toMilliseconds('250ms'), 250)
  assert.equal(toMilliseconds('30s'), 30_000)
  assert.equal(toMilliseconds('1.5m'), 90_000)
  assert.equal(toMilliseconds('2h'), 7_200_000)
  assert.equal(toMilliseconds('1d'), 86_400_000)
  assert.equal(toMilliseconds('1w'), 604_800_000)
})

void test('units spelled out, singular or plural, with or without a space', () => {
  assert.equal(toMilliseconds('7 days'), 7 * 86_400_000)
  assert.equal(toMilliseconds('1 day'), 86_400_000)
  assert.equal(toMilliseconds('1 hour'), 3_600_000)
  assert.equal(toMilliseconds('2hours'), 7_200_000)
  assert.equal(toMilliseconds('90 minutes'), 5_400_000)
  assert.equal(toMilliseconds('10 mins'), 600_000)
  assert.equal(toMilliseconds('45 seconds'), 45_000)
  assert.equal(toMilliseconds('3 secs'), 3_000)
  assert.equal(toMilliseconds('2 weeks'), 2 * 604_800_000)
  assert.equal(toMilliseconds('500 milliseconds'), 500)
})

void test('anything else is refused with E_INVALID_ARGUMENT, never guessed', () => {
  for (const bad of [
    '7 fortnights',
    '5 months',
    '1 year',
    'soon',
    '',
    'days',
    '5 Days',
    '-1s',
    '1e3s',
  ]) {
    assert.throws(
      () => toMilliseconds(bad, 'sleep duration'),
      (error: Error & { code?: string }) =>
        error.code === 'E_INVALID_ARGUMENT' && error.message.startsWith('sleep duration'),
      bad,
    )
  }
  assert.throws(() => toMilliseconds(-5), { code: 'E_INVALID_ARGUMENT' })
  assert.throws(() => toMilliseconds(Number.NaN), { code: 'E_INVALID_ARGUMENT' })
})
