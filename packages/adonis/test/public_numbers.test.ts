/**
 * The numbers of config/durable.ts and of `durable:work`'s flags, fed what a careless config
 * sends (NaN, ±Infinity, -1, 0, fractions, 2^31, 2^53, strings, objects): refused when the
 * config loads with E_INVALID_ARGUMENT naming the field, or taken — by the engine's own ranges
 * (`NUMBER_RANGES` from @cairn/core), so a value defineConfig takes is one the engine takes.
 * And names: `__proto__`, `constructor` and `prototype` as config keys are refused as unknown
 * options; as a store's name they are a plain key, and nothing reaches Object.prototype.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { MAX_TIME_MS, MAX_TIMER_MS } from '@cairn/core/store-kit'
import { stores, validateConfig } from '@cairn/adonis'
import { workOverrides } from '../src/ace/work_flags.ts'
import { assertEveryProbe, int, type NumberEntry } from '../../core/test/number_probes.ts'

const sqlite = stores.sqlite({ path: ':memory:' })

/** Loads a config with `field` set to `value`: resolves when taken, throws when refused. */
async function withField(field: string, value: unknown): Promise<unknown> {
  return validateConfig({ store: 'sqlite', stores: { sqlite }, [field]: value })
}

const ENTRIES: NumberEntry[] = [
  ...(['leaseMs', 'pollIntervalMs'] as const).map((field) => ({
    name: `config/durable.ts ${field}`,
    accepts: (v: unknown) => int(v, 1, MAX_TIMER_MS),
    call: (v: unknown) => withField(field, v),
  })),
  {
    name: 'config/durable.ts concurrency',
    accepts: (v) => int(v, 1, 1_000_000),
    call: (v) => withField('concurrency', v),
  },
  {
    name: 'config/durable.ts drainTimeoutMs',
    accepts: (v) => v === Number.POSITIVE_INFINITY || int(v, 0, MAX_TIME_MS),
    call: (v) => withField('drainTimeoutMs', v),
  },
  {
    name: 'durable:work --concurrency',
    accepts: (v) => int(v, 1, 1_000_000),
    call: async (v) => workOverrides({ concurrency: v as number }),
  },
  {
    name: 'durable:work --drain-timeout',
    accepts: (v) => int(v, 0, MAX_TIME_MS),
    call: async (v) => workOverrides({ drainTimeout: v as number }),
  },
]

for (const entry of ENTRIES) {
  void test(`${entry.name}: bad numbers are refused, valid ones taken`, () =>
    assertEveryProbe(entry))
}

void test('a refused config number names its field, in the config error form', async () => {
  await assert.rejects(withField('leaseMs', Number.NaN), {
    code: 'E_INVALID_ARGUMENT',
    message: /^Invalid config\/durable\.ts: "leaseMs" leaseMs must be an integer from 1 to/,
  })
})

const RESERVED = ['__proto__', 'constructor', 'prototype']

void test('prototype names as config keys are unknown options; as a store name, a plain key', () => {
  const before = Object.getOwnPropertyNames(Object.prototype).sort().join()
  for (const name of RESERVED) {
    // Parsed JSON makes each an own key, as a config assembled from data would.
    const top = JSON.parse(`{"store":"sqlite","${name}":{"leaseMs":1}}`)
    top.stores = { sqlite }
    assert.throws(() => validateConfig(top), {
      code: 'E_INVALID_ARGUMENT',
      message: new RegExp(`"${name}" is not a known option`),
    })
    const dashboard = JSON.parse(`{"${name}":{"enabled":true}}`)
    assert.throws(() => validateConfig({ store: 'sqlite', stores: { sqlite }, dashboard }), {
      message: new RegExp(`"dashboard.${name}" is not a known option`),
    })
    const named = JSON.parse(`{"${name}":null}`)
    named[name] = sqlite
    const config = validateConfig({ store: name, stores: named })
    assert.equal(config.store, name)
    assert.equal(Object.getOwnPropertyDescriptor(config.stores, name)?.value, sqlite)
    // A name the stores object only inherits is not a store.
    assert.throws(() => validateConfig({ store: name, stores: { sqlite } }), {
      message: /"store" must name one of stores \(sqlite\)/,
    })
  }
  assert.equal(Object.getOwnPropertyNames(Object.prototype).sort().join(), before)
  assert.equal(({} as Record<string, unknown>).leaseMs, undefined)
  assert.equal(({} as Record<string, unknown>).enabled, undefined)
})
