/**
 * postgres/plan_refresh.ts: the statement names change each time the runs table has doubled
 * since the last change (from FIRST_BYTES on), the size is read after CHECK_STATEMENTS statements
 * or CHECK_MS, whichever comes first, one read at a time, and a failed read changes nothing.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  CHECK_MS,
  CHECK_STATEMENTS,
  FIRST_BYTES,
  PlanRefresh,
} from '../src/postgres/plan_refresh.ts'

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
    /** `count` statements sent at `ms`, the table being `size` bytes. */
    async at(ms: number, size: number, failing = false, count = 1) {
      now = ms
      bytes = size
      fail = failing
      for (let i = 0; i < count; i++) refresh.tick()
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

void test('read CHECK_MS after the last read when fewer statements were sent; a failed read changes nothing', async () => {
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

void test('read after CHECK_STATEMENTS statements, however soon: a table grows only by statements', async () => {
  const h = harness()
  await h.at(0, 0)
  assert.equal(h.reads(), 1, 'the first statement reads')
  await h.at(1, FIRST_BYTES * 4, false, CHECK_STATEMENTS - 1)
  assert.equal(h.reads(), 1, 'one statement short')
  assert.equal(h.refresh.generation, 0)
  await h.at(2, FIRST_BYTES * 4)
  assert.equal(h.reads(), 2, 'the CHECK_STATEMENTS-th statement since the last read reads')
  assert.equal(h.refresh.generation, 1)
  await h.at(3, FIRST_BYTES * 16, false, CHECK_STATEMENTS - 1)
  assert.equal(h.reads(), 2, 'the count starts again at each read')
  await h.at(4, FIRST_BYTES * 16)
  assert.equal(h.refresh.generation, 2)
})

void test('statements sent while a read is out are counted toward the next one', async () => {
  let release: (bytes: number) => void = () => {}
  let reads = 0
  const refresh = new PlanRefresh(
    () => {
      reads++
      return new Promise<number>((resolve) => (release = resolve))
    },
    () => 0,
  )
  refresh.tick()
  for (let i = 0; i < CHECK_STATEMENTS * 3; i++) refresh.tick()
  assert.equal(reads, 1, 'one read at a time')
  release(0)
  await new Promise((resolve) => setImmediate(resolve))
  refresh.tick()
  assert.equal(reads, 2, 'the statements sent meanwhile count: the next one reads')
})
