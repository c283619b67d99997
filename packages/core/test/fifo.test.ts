/**
 * util/fifo.ts: the queue the deliverer takes a run's outcomes from. Checked against an array
 * model over random pushes and shifts, across many compactions; and its compactions copy each
 * element at most about once (draining 200,000 items copies at most 200,000). Its speed is the
 * bench's to show (issue 18), never a test's.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Fifo } from '../src/util/fifo.ts'

void test('behaves as an array with push and shift, across compactions', () => {
  let seed = 42
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31
  const fifo = new Fifo<number>()
  const model: number[] = []
  let next = 0
  for (let op = 0; op < 200_000; op++) {
    // Bursts of pushes then of shifts, so the queue grows past the compaction size and drains.
    const pushing = Math.floor(op / 5_000) % 2 === 0 ? random() < 0.7 : random() < 0.3
    if (pushing) {
      fifo.push(next)
      model.push(next++)
    } else assert.equal(fifo.shift(), model.shift())
    assert.equal(fifo.length, model.length)
  }
  while (model.length > 0) assert.equal(fifo.shift(), model.shift())
  assert.equal(fifo.shift(), undefined)
  assert.equal(fifo.length, 0)
})

void test('clear empties it; it is usable after', () => {
  const fifo = new Fifo<string>()
  for (const item of ['a', 'b', 'c']) fifo.push(item)
  fifo.clear()
  assert.equal(fifo.length, 0)
  assert.equal(fifo.shift(), undefined)
  fifo.push('d')
  assert.equal(fifo.shift(), 'd')
})

void test('compactions copy each element at most about once', () => {
  const fifo = new Fifo<number>()
  const n = 200_000
  for (let i = 0; i < n; i++) fifo.push(i)
  // Count element copies made by compactions through the array it slices.
  let copied = 0
  const slice = Array.prototype.slice
  Array.prototype.slice = function (this: unknown[], start?: number, end?: number) {
    const out = slice.call(this, start, end)
    copied += out.length
    return out
  }
  try {
    for (let i = 0; i < n; i++) assert.equal(fifo.shift(), i)
  } finally {
    Array.prototype.slice = slice
  }
  assert.ok(copied <= n, `${copied} elements copied to drain ${n}`)
})
