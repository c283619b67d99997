import assert from 'node:assert/strict'
import { test } from 'node:test'
import { newRunId } from '../src/util/run_id.ts'

void test('default run ids are UUIDv7, unique and in creation order', () => {
  const ids = Array.from({ length: 20_000 }, () => newRunId())
  for (const id of ids.slice(0, 100))
    assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  assert.equal(new Set(ids).size, ids.length)
  assert.deepEqual(
    [...ids].sort(),
    ids,
    'lexicographic order is creation order, even within one millisecond',
  )
  const ms = Number.parseInt(ids[0]!.replaceAll('-', '').slice(0, 12), 16)
  assert.ok(Math.abs(ms - Date.now()) < 60_000, 'the prefix is the creation time')
})
