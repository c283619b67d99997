/**
 * `__proto__`, `constructor` and `prototype` on the `cairn` command line: as option names they
 * are unknown options (bad usage, exit 2); as values — a workflow filter, a run id — they are
 * plain text handed to the store. Nothing reaches Object.prototype.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { cairnWithoutStore as cairn } from './in_process.ts'

void test('prototype names as options are usage errors; as values, plain text', async () => {
  const before = Object.getOwnPropertyNames(Object.prototype).sort().join()
  for (const name of ['__proto__', 'constructor', 'prototype']) {
    const asOption = await cairn(['runs', `--${name}`, 'x'])
    assert.equal(asOption.code, 2, asOption.stderr)
    assert.match(asOption.stderr, /^E_USAGE: /)
    for (const args of [
      ['runs', '--workflow', name],
      ['run', name],
      ['cancel', name],
    ]) {
      const asValue = await cairn(args)
      assert.equal(asValue.code, 1, `${args.join(' ')}: ${asValue.stderr}`)
      assert.match(asValue.stderr, /no SQLite file/, args.join(' '))
    }
  }
  assert.equal(Object.getOwnPropertyNames(Object.prototype).sort().join(), before)
  assert.equal(({} as Record<string, unknown>).x, undefined)
})
