/**
 * Where schedule windows fall (engine/schedule_windows.ts): cron in a time zone across both DST
 * transitions, fixed periods from their anchor, bounds, jitter the same for every caller, and
 * which windows a firing after a downtime handles (the newest 1 + maxCatchup, the rest skipped).
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { JsonCodec } from '@cairn/core'
import { checkSchedule } from '../src/engine/schedule_spec.ts'
import { dueWindows, MAX_SCAN, ScheduleTimes } from '../src/engine/schedule_windows.ts'

const codec = new JsonCodec()
const at = (iso: string) => Date.parse(iso)
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

function times(spec: object, now = at('2027-01-01T00:00:00Z'), id = 's') {
  return new ScheduleTimes(id, checkSchedule(id, { workflow: 'w', ...spec }, codec, now).stored)
}

function walk(t: ScheduleTimes, from: number, n: number): Array<string | null> {
  const out: Array<string | null> = []
  let cur: number | null = from
  for (let i = 0; i < n && cur !== null; i++) {
    cur = t.next(cur)
    out.push(iso(cur))
  }
  return out
}

void test('cron in Europe/Paris: a time in the spring-forward gap fires after it, a repeated one once', () => {
  const t = times({ cron: '30 2 * * *', timezone: 'Europe/Paris' })
  assert.deepEqual(walk(t, at('2027-03-26T12:00:00Z'), 3), [
    '2027-03-27T01:30:00.000Z', // 02:30 CET
    '2027-03-28T01:00:00.000Z', // 02:30 does not exist: 03:00 CEST, the first valid time after
    '2027-03-29T00:30:00.000Z', // 02:30 CEST
  ])
  assert.deepEqual(walk(t, at('2027-10-30T12:00:00Z'), 3), [
    '2027-10-31T00:30:00.000Z', // 02:30 CEST, the first of the two 02:30s: once
    '2027-11-01T01:30:00.000Z', // 02:30 CET
    '2027-11-02T01:30:00.000Z',
  ])
})

void test('everyMs falls on its anchor and steps of the period; startAt and endAt bound it', () => {
  const t = times({
    everyMs: 60_000,
    startAt: at('2027-01-01T00:00:30Z'),
    endAt: at('2027-01-01T00:03:30Z'),
  })
  assert.deepEqual(walk(t, at('2026-12-31T00:00:00Z'), 5), [
    '2027-01-01T00:00:30.000Z',
    '2027-01-01T00:01:30.000Z',
    '2027-01-01T00:02:30.000Z',
    '2027-01-01T00:03:30.000Z',
    null,
  ])
  const cron = times({ cron: '* * * * *', startAt: at('2027-01-01T00:10:00Z') })
  assert.equal(iso(cron.next(at('2027-01-01T00:00:00Z'))), '2027-01-01T00:10:00.000Z')
})

void test('jitter spreads windows within jitterMs, the same for every caller, and differs by window', () => {
  const a = times({ everyMs: 60_000, jitterMs: 30_000 }, 0, 'nightly')
  const b = times({ everyMs: 60_000, jitterMs: 30_000 }, 0, 'nightly')
  const dues = Array.from({ length: 50 }, (_, k) => a.due(k * 60_000) - k * 60_000)
  assert.deepEqual(
    dues,
    Array.from({ length: 50 }, (_, k) => b.due(k * 60_000) - k * 60_000),
  )
  assert.ok(dues.every((d) => d >= 0 && d <= 30_000))
  assert.ok(new Set(dues).size > 10, 'spread, not one offset')
})

void test('after a downtime a firing takes the newest 1 + maxCatchup windows and counts the rest', () => {
  const t = times({ everyMs: 60_000 }, 0)
  const due = dueWindows(t, 59_999, 10 * 60_000 + 5, 2)
  assert.deepEqual(due, {
    fire: [480_000, 540_000, 600_000],
    skipped: 7,
    last: 600_000,
    next: 660_000,
  })
  const none = dueWindows(t, 600_000, 600_000 + 59_999, 0)
  assert.deepEqual(none, { fire: [], skipped: 0, last: null, next: 660_000 })
  // A downtime of more than MAX_SCAN windows is not walked: found backwards from now.
  const long = dueWindows(t, -1, 5_000 * 60_000, 1)
  assert.deepEqual(long.fire, [4_999 * 60_000, 5_000 * 60_000])
  assert.equal(long.skipped, MAX_SCAN)
  const cron = times({ cron: '*/5 * * * *' })
  const cronLong = dueWindows(cron, at('2027-01-01T00:00:00Z'), at('2027-02-01T00:00:00Z'), 0)
  assert.deepEqual(cronLong.fire.map(iso), ['2027-02-01T00:00:00.000Z'])
})

void test('bad specs are refused by name, nothing built', () => {
  const bad: Array<[string, object]> = [
    ['both', { cron: '* * * * *', everyMs: 60_000 }],
    ['neither', {}],
    ['a 7-field cron', { cron: '0 0 0 1 1 * 2030' }],
    ['minute 61', { cron: '61 * * * *' }],
    ['never matches', { cron: '0 0 30 2 *' }],
    ['unknown zone', { cron: '* * * * *', timezone: 'Mars/Olympus' }],
    ['zone with everyMs', { everyMs: 60_000, timezone: 'UTC' }],
    ['everyMs 999', { everyMs: 999 }],
    ['everyMs NaN', { everyMs: NaN }],
    ['jitter -1', { everyMs: 60_000, jitterMs: -1 }],
    ['endAt before startAt', { everyMs: 60_000, startAt: 10, endAt: 5 }],
    ['startAt a string', { everyMs: 60_000, startAt: '2027' }],
    ['overlap', { everyMs: 60_000, overlap: 'queue' }],
    ['backfill -1', { everyMs: 60_000, backfill: { maxCatchup: -1 } }],
    ['backfill 1001', { everyMs: 60_000, backfill: { maxCatchup: 1001 } }],
    ['backfill key', { everyMs: 60_000, backfill: { max: 1 } }],
    ['paused a string', { everyMs: 60_000, paused: 'yes' }],
    ['an unknown key', { everyMs: 60_000, every: 5 }],
    ['__proto__', JSON.parse('{"everyMs": 60000, "__proto__": {"x": 1}}') as object],
  ]
  for (const [what, spec] of bad)
    assert.throws(() => times(spec), { code: 'E_INVALID_ARGUMENT' }, what)
  assert.throws(() => checkSchedule('', { workflow: 'w', everyMs: 60_000 }, codec, 0), {
    code: 'E_INVALID_ARGUMENT',
  })
})
