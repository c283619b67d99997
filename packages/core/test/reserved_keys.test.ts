/**
 * `__proto__`, `constructor` and `prototype` where outside data becomes object keys in the
 * engine: refused as search attribute names (upserts, list filters), kept exactly as payload
 * keys (the codec defines them as own properties), and never a write into Object.prototype.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { JsonCodec } from '../src/codec/index.ts'
import { Engine } from '../src/engine/engine.ts'
import { silentLogger } from '../src/engine/default_logger.ts'
import { checkUpsert, parseSearchFilter } from '../src/search/index.ts'
import { MemoryStore } from '../src/store/memory/memory_store.ts'

const RESERVED = ['__proto__', 'constructor', 'prototype']
const untouched = () => JSON.stringify(Object.getOwnPropertyNames(Object.prototype).sort())

void test('reserved names are refused as search attribute names, in upserts and in filters', async () => {
  const before = untouched()
  const engine = new Engine({ store: new MemoryStore(), logger: silentLogger })
  for (const name of RESERVED) {
    const upsert = JSON.parse(`{"${name}": 1}`) as Record<string, number>
    assert.throws(() => checkUpsert(upsert, 'test'), { code: 'E_INVALID_ARGUMENT' }, name)
    const filter = JSON.parse(`{"${name}": {"gt": 5}}`) as Record<string, { gt: number }>
    assert.throws(() => parseSearchFilter(filter), { code: 'E_INVALID_ARGUMENT' }, name)
    await assert.rejects(engine.listRuns({ searchAttributes: filter }), {
      code: 'E_INVALID_ARGUMENT',
    })
  }
  assert.equal(untouched(), before)
  assert.equal(({} as Record<string, unknown>).gt, undefined)
})

void test('reserved names are plain keys of a payload, through the codec and back', () => {
  const codec = new JsonCodec()
  const value = JSON.parse(
    '{"__proto__":{"polluted":true},"constructor":{"name":"x"},"prototype":[1],"nested":{"__proto__":2}}',
  ) as Record<string, unknown>
  const back = codec.decode(codec.encode(value)) as Record<string, unknown>
  assert.deepEqual(Object.keys(back), ['__proto__', 'constructor', 'prototype', 'nested'])
  assert.equal(Object.getPrototypeOf(back), Object.prototype)
  assert.deepEqual(Object.getOwnPropertyDescriptor(back, '__proto__')?.value, { polluted: true })
  const nested = back.nested as Record<string, unknown>
  assert.equal(Object.getOwnPropertyDescriptor(nested, '__proto__')?.value, 2)
  assert.equal(({} as Record<string, unknown>).polluted, undefined)
})
