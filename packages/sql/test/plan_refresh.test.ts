/**
 * postgres/plan_refresh.ts: the statement names change each time the runs table has doubled
 * since the last change (from FIRST_BYTES on), the size is read at most every CHECK_MS and one
 * read at a time, and a failed read changes nothing.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { CHECK_MS, FIRST_BYTES, PlanRefresh } from '../src/postgres/plan_refresh.ts'

function harness() {
  let now = 0
  let bytes = 0
  let reads = 0
  let fail = false
  const refresh = new PlanRefresh(
    async () => {
      reads++
      if (fail) throw new Error('connection refused')
      return bytes
    },
    () => now,
  )
  const settle = () => new Promise((resolve) => setImmediate(resolve))
  return {
    refresh,
    reads: () => reads,
    async at(ms: number, size: number, failing = false) {
      now = ms
      bytes = size
      fail = failing
      refresh.tick()
      await settle()
    },
  }
}

void test('a new generation each time the table doubled, from FIRST_BYTES on', async () => {
  const h = harness()
  await h.at(0, 8192)
  assert.equal(h.refresh.generation, 0, 'a few pages: the plans stay')
  await h.at(CHECK_MS, FIRST_BYTES)
  assert.equal(h.refresh.generation, 1)
  await h.at(2 * CHECK_MS, FIRST_BYTES * 2 - 1)
  assert.equal(h.refresh.generation, 1, 'not yet doubled')
  await h.at(3 * CHECK_MS, FIRST_BYTES * 2)
  assert.equal(h.refresh.generation, 2)
  await h.at(4 * CHECK_MS, FIRST_BYTES * 64)
  assert.equal(h.refresh.generation, 3, 'one renewal however much it grew')
  await h.at(5 * CHECK_MS, FIRST_BYTES * 100)
  assert.equal(h.refresh.generation, 3)
})

void test('read at most every CHECK_MS; a failed read changes nothing', async () => {
  const h = harness()
  await h.at(0, 0)
  await h.at(CHECK_MS - 1, FIRST_BYTES * 8)
  assert.equal(h.reads(), 1, 'too soon: not read')
  assert.equal(h.refresh.generation, 0)
  await h.at(CHECK_MS, FIRST_BYTES * 8, true)
  assert.equal(h.reads(), 2)
  assert.equal(h.refresh.generation, 0, 'the read failed')
  await h.at(2 * CHECK_MS, FIRST_BYTES * 8)
  assert.equal(h.refresh.generation, 1)
})
