import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Engine } from '../src/engine/engine.ts'
import { resolveEngineOptions } from '../src/engine/options.ts'
import { MemoryStore } from '../src/store/memory/memory_store.ts'
import { FakeClock } from '../src/testing/fake_clock.ts'

const store = new MemoryStore()

void test('a short lease alone is accepted: holdTimersUpToMs derives from it', () => {
  assert.doesNotThrow(() => new Engine({ store, leaseMs: 2_000 }))
  assert.equal(resolveEngineOptions({ store, leaseMs: 2_000 }).holdTimersUpToMs, 1_000)
  assert.equal(resolveEngineOptions({ store, leaseMs: 3 }).holdTimersUpToMs, 1)
  assert.equal(resolveEngineOptions({ store, leaseMs: 1 }).holdTimersUpToMs, 0)
  // The 5 s default stays where the lease leaves room for it.
  assert.equal(resolveEngineOptions({ store }).holdTimersUpToMs, 5_000)
  assert.equal(resolveEngineOptions({ store, leaseMs: 10_000 }).holdTimersUpToMs, 5_000)
  assert.equal(resolveEngineOptions({ store, leaseMs: 9_999 }).holdTimersUpToMs, 4_999)
})

void test('a holdTimersUpToMs the user gave is kept, and refused by its value when it contradicts the lease', () => {
  assert.equal(
    resolveEngineOptions({ store, leaseMs: 2_000, holdTimersUpToMs: 1_500 }).holdTimersUpToMs,
    1_500,
  )
  assert.throws(
    () => new Engine({ store, leaseMs: 2_000, holdTimersUpToMs: 2_000 }),
    (error: Error & { code?: string }) =>
      error.code === 'E_INVALID_ARGUMENT' &&
      error.message === 'holdTimersUpToMs (2000) must be shorter than leaseMs (2000)',
  )
  // Against the default lease, the message says the lease is the default.
  assert.throws(
    () => new Engine({ store, holdTimersUpToMs: 40_000 }),
    (error: Error) =>
      error.message === 'holdTimersUpToMs (40000) must be shorter than the default leaseMs (30000)',
  )
})

void test('an invalid leaseMs is refused by name, never hidden behind a derived default', () => {
  for (const leaseMs of [0, -5, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
    assert.throws(() => new Engine({ store, leaseMs }), /leaseMs must be a positive integer/)
  }
})

void test('leases age on the clock’s monotonic time when it has one, else on now()', () => {
  const clock = new FakeClock(1_000)
  assert.equal(resolveEngineOptions({ store, clock }).monotonic(), 1_000)
  const wall = { now: () => 42, setTimer: clock.setTimer.bind(clock) }
  assert.equal(resolveEngineOptions({ store, clock: wall }).monotonic(), 42)
  const real = resolveEngineOptions({ store })
  const a = real.monotonic()
  assert.ok(real.monotonic() >= a)
  assert.ok(
    Math.abs(a - performance.now()) < 1_000,
    'the system clock measures on performance.now()',
  )
})
