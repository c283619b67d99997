/**
 * checkOptionKeys, the one check every options object of the public API goes through: own
 * keys only, a plain object only, an unknown key named, a seed package's key explained.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { runInNewContext } from 'node:vm'
import { checkOptionKeys, optionNames, type OptionsSpec } from '../src/util/known_keys.ts'

const SPEC: OptionsSpec = {
  call: 'thing.do',
  known: optionNames<{ retries?: number; timeoutMs?: number }>({ retries: true, timeoutMs: true }),
  foreign: {
    singleton: { notYet: 'per-key admission' },
    executionTimeout: { instead: 'Cairn names it executionTimeoutMs', use: 'executionTimeoutMs' },
  },
}

const refused = (option: string, pattern: RegExp) => (error: Error & Record<string, unknown>) => {
  assert.equal(error.code, 'E_INVALID_ARGUMENT')
  assert.match(error.message, pattern)
  assert.equal((error.details as { option?: string }).option, option)
  return true
}

void test('known keys pass, undefined-valued ones too; no options at all is fine', () => {
  checkOptionKeys(undefined, SPEC)
  checkOptionKeys({}, SPEC)
  checkOptionKeys({ retries: 1, timeoutMs: undefined }, SPEC)
  checkOptionKeys(Object.assign(Object.create(null) as object, { retries: 2 }), SPEC)
  // A plain object made in another realm (a vm context, a test runner's sandbox) is plain.
  checkOptionKeys(runInNewContext('({ retries: 3 })'), SPEC)
})

void test('an unknown key is refused by name with the call and the keys it takes', () => {
  assert.throws(
    () => checkOptionKeys({ retries: 1, retry: 2 }, SPEC, 'step "charge"', { step: 'charge' }),
    (error: Error & { details: Record<string, unknown> }) => {
      assert.equal(
        error.message,
        'step "charge": unknown option "retry" (thing.do takes retries, timeoutMs)',
      )
      assert.deepEqual(error.details, {
        step: 'charge',
        call: 'thing.do',
        option: 'retry',
        known: ['retries', 'timeoutMs'],
      })
      return true
    },
  )
  // Refused even when undefined: tsc refuses the key whatever its value.
  assert.throws(() => checkOptionKeys({ timeout: undefined }, SPEC), refused('timeout', /timeout/))
})

void test("a seed package's key says it is not in Cairn yet, or what Cairn calls it", () => {
  assert.throws(
    () => checkOptionKeys({ singleton: { limit: 1 } }, SPEC),
    (error: Error & { details: Record<string, unknown> }) => {
      assert.equal(
        error.message,
        `thing.do: unknown option "singleton": @adonis-agora/durable's "singleton" (per-key admission) is not in Cairn yet (docs/migrating-from-adonis-agora-durable.md)`,
      )
      assert.deepEqual(error.details, { call: 'thing.do', option: 'singleton', notYet: true })
      return true
    },
  )
  assert.throws(
    () => checkOptionKeys({ executionTimeout: '30s' }, SPEC),
    (error: Error & { details: Record<string, unknown> }) => {
      assert.match(
        error.message,
        /unknown option "executionTimeout": Cairn names it executionTimeoutMs/,
      )
      assert.deepEqual(error.details, {
        call: 'thing.do',
        option: 'executionTimeout',
        notYet: false,
        use: 'executionTimeoutMs',
      })
      return true
    },
  )
})

void test('__proto__, constructor and prototype as own keys (JSON input) are refused, never looked up', () => {
  for (const key of ['__proto__', 'constructor', 'prototype', 'hasOwnProperty']) {
    const options = JSON.parse(`{"${key}": {"retries": 1}}`) as object
    assert.throws(
      () => checkOptionKeys(options, SPEC),
      refused(key, new RegExp(`unknown option "${key}" \\(thing\\.do takes`)),
      key,
    )
  }
  assert.equal(({} as Record<string, unknown>).retries, undefined)
})

void test('symbol keys are refused; non-enumerable and inherited keys are not options', () => {
  const tag = Symbol('tag')
  assert.throws(() => checkOptionKeys({ [tag]: 1 }, SPEC), refused('Symbol(tag)', /Symbol\(tag\)/))
  const hidden = Object.defineProperty({ retries: 1 }, 'internal', { value: 1, enumerable: false })
  checkOptionKeys(hidden, SPEC)
})

void test('only plain objects: an array, a class instance, a Map or a string is refused', () => {
  class Options {
    retries = 1
  }
  const inherits = Object.create({ singleton: true }) as object
  for (const [value, kind] of [
    [[1], 'an array'],
    [new Options(), 'an instance of Options'],
    [new Map([['retries', 1]]), 'an instance of Map'],
    ['fast', 'string'],
    [null, 'null'],
    // Its prototype carries a key a reader of `options.singleton` would see.
    [inherits, 'an instance of Object'],
  ] as const) {
    assert.throws(
      () => checkOptionKeys(value, SPEC),
      (error: Error & { code?: string }) =>
        error.code === 'E_INVALID_ARGUMENT' &&
        error.message === `thing.do: options must be a plain object, got ${kind}`,
      kind,
    )
  }
})
