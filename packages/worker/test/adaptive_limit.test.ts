/**
 * The adaptive concurrency rule (adaptive_limit.ts), with any numbers: backs off on each kind of
 * pressure, grows only when saturated, stays within its bounds; settings checked at creation.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { availableParallelism } from 'node:os'
import { AdaptiveLimit, adaptiveSettings } from '../src/adaptive_limit.ts'
import { cpuBudget } from '../src/load_sampler.ts'

const CALM = { eventLoopDelayMs: 5, eventLoopUtilization: 0.3, cpu: 0.1, memory: 0.2 }

void test('grows while saturated and calm, by a quarter at least one, up to max', () => {
  const limit = new AdaptiveLimit(adaptiveSettings({ mode: 'adaptive', min: 2, max: 10 }))
  assert.equal(limit.limit, 2, 'starts at min')
  const seen = [2, 3, 4, 5, 6, 7, 8, 10].map((peak) => limit.adjust(CALM, peak))
  assert.deepEqual(seen, [3, 4, 5, 6, 7, 8, 10, 10])
})

void test('holds when not saturated: an idle worker learns nothing', () => {
  const limit = new AdaptiveLimit(adaptiveSettings({ mode: 'adaptive', min: 4, max: 10 }))
  assert.equal(limit.adjust(CALM, 3), 4)
  assert.equal(limit.adjust(CALM, 0), 4)
})

void test('backs off by 30% (at least one, not below min) on each kind of pressure', () => {
  const settings = adaptiveSettings({ mode: 'adaptive', min: 2, max: 64 })
  for (const pressure of [
    { ...CALM, eventLoopDelayMs: 150 },
    { ...CALM, eventLoopUtilization: 0.99 },
    { ...CALM, cpu: 0.95 },
    { ...CALM, memory: 0.9 },
  ]) {
    const limit = new AdaptiveLimit(settings)
    for (let i = 0; i < 20; i++) limit.adjust(CALM, limit.limit)
    assert.equal(limit.limit, 64)
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map(() => limit.adjust(pressure, limit.limit)),
      [44, 30, 21, 14, 9, 6, 4, 2, 2, 2],
      JSON.stringify(pressure),
    )
  }
  const small = new AdaptiveLimit(adaptiveSettings({ mode: 'adaptive', min: 1, max: 3 }))
  small.adjust(CALM, 1)
  small.adjust(CALM, 2)
  assert.equal(small.limit, 3)
  assert.equal(small.adjust({ ...CALM, cpu: 1 }, 3), 2, 'at least one step down')
})

void test('thresholds are settings; a measure that is not a number is no pressure', () => {
  const strict = new AdaptiveLimit(adaptiveSettings({ mode: 'adaptive', maxEventLoopDelayMs: 2 }))
  assert.equal(strict.pressured(CALM), true)
  const lax = new AdaptiveLimit(adaptiveSettings('adaptive'))
  assert.equal(
    lax.pressured({
      eventLoopDelayMs: Number.NaN,
      eventLoopUtilization: Number.NaN,
      cpu: Infinity,
      memory: 0,
    }),
    false,
  )
})

void test('settings: defaults, and every bad one refused with E_INVALID_ARGUMENT', () => {
  assert.deepEqual(adaptiveSettings('adaptive'), {
    mode: 'adaptive',
    min: 1,
    max: 64,
    maxEventLoopDelayMs: 100,
    maxEventLoopUtilization: 0.95,
    maxCpu: 0.9,
    maxMemory: 0.85,
    sampleEveryMs: 1_000,
  })
  const bad: unknown[] = [
    { mode: 'adaptive', min: 0 },
    { mode: 'adaptive', min: 1.5 },
    { mode: 'adaptive', max: Number.NaN },
    { mode: 'adaptive', min: 5, max: 4 },
    { mode: 'adaptive', maxCpu: 0 },
    { mode: 'adaptive', maxEventLoopUtilization: 2 },
    { mode: 'adaptive', maxCpu: 1.5 },
    { mode: 'adaptive', maxMemory: '0.5' },
    { mode: 'adaptive', maxEventLoopDelayMs: -1 },
    { mode: 'adaptive', sampleEveryMs: 10 },
    { mode: 'adaptive', limit: 3 },
    { mode: 'fixed', min: 3 },
    { min: 3 },
    JSON.parse('{"mode":"adaptive","__proto__":{"min":3}}'),
  ]
  for (const given of bad)
    assert.throws(
      () => adaptiveSettings(given as never),
      { code: 'E_INVALID_ARGUMENT' },
      JSON.stringify(given),
    )
})

void test('the CPU budget is the cgroup quota when it is below the core count', () => {
  const files = (entries: Record<string, string>) => (path: string) => {
    const body = entries[path]
    if (body === undefined) throw new Error(`ENOENT ${path}`)
    return body
  }
  const cores = availableParallelism()
  assert.equal(cpuBudget(files({})), cores, 'no cgroup: the machine')
  assert.equal(
    cpuBudget(files({ '/sys/fs/cgroup/cpu.max': 'max 100000\n' })),
    cores,
    'v2 without a quota',
  )
  assert.equal(
    cpuBudget(files({ '/sys/fs/cgroup/cpu.max': '50000 100000\n' })),
    1,
    'half a CPU counts as one',
  )
  assert.equal(
    cpuBudget(files({ '/sys/fs/cgroup/cpu.max': `${cores * 200000} 100000` })),
    cores,
    'a quota above the machine',
  )
  assert.equal(
    cpuBudget(
      files({
        '/sys/fs/cgroup/cpu/cpu.cfs_quota_us': '-1',
        '/sys/fs/cgroup/cpu/cpu.cfs_period_us': '100000',
      }),
    ),
    cores,
    'v1 without a quota',
  )
  assert.equal(cpuBudget(files({ '/sys/fs/cgroup/cpu.max': 'garbage' })), cores, 'unreadable')
})
