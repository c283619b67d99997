/**
 * The ledger checks themselves: a step started after its successor fails the check unless its
 * body began long after its lease check (a stall inside the documented window), which is
 * counted and reported instead; a start whose stall is unknown is judged strictly.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { readTimeline, type Exec, type Timeline } from './ledger.ts'
import { STALL_MS, checkNoDoubleStarts } from './ledger_checks.ts'

function exec(step: number, pid: number, line: number, end: number, stallMs: number | null): Exec {
  return {
    runId: 'r',
    step,
    attempt: 1,
    pid,
    exec: `e${line}`,
    line,
    end,
    stallMs,
    startedAt: null,
  }
}

/** Step 0 by pid 1, step 1 by pid 2, then step 0 again by pid 1 after its pause. */
function lateStart(stallMs: number | null): Timeline {
  return {
    execs: [exec(0, 2, 2, 3, 0.1), exec(1, 2, 4, 5, 0.1), exec(0, 1, 7, 8, stallMs)],
    pauses: [{ pid: 1, from: 1, to: 6, contAt: null }],
    deaths: new Map(),
  }
}

void test('a late start with a stall past STALL_MS is the documented window: counted, not failed', () => {
  const counts = checkNoDoubleStarts('stalled', lateStart(STALL_MS + 5_000))
  assert.deepEqual(counts, { late: 0, concurrent: 0, resumed: 0, stalled: 1 })
})

void test('a late start without such a stall fails, with the run told', () => {
  for (const stallMs of [0.2, STALL_MS - 1, null])
    assert.throws(
      () => checkNoDoubleStarts('not stalled', lateStart(stallMs)),
      /1 steps started after their successor\nrun r:\n {2}line 1: pid 1 paused until line 6/,
    )
})

/** A ledger where pid 1's step-0 body began before its stop but wrote its line after the cont. */
function ledgerText(startedAt: number): string {
  return [
    'stop 1 1000.0',
    'exec r 0 1 2 a 0.0 2000.0',
    'done a',
    'exec r 1 1 2 b 0.0 2010.0',
    'done b',
    'cont 1 7000.0',
    `exec r 0 1 1 c 0.0 ${startedAt.toFixed(1)}`,
    'done c',
    '',
  ].join('\n')
}

function timelineOf(text: string): Timeline {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-ledger-'))
  try {
    writeFileSync(join(dir, 'ledger.txt'), text)
    return readTimeline(join(dir, 'ledger.txt'))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

void test('a line written after the cont by a body that began before the stop is put back there', () => {
  const before = timelineOf(ledgerText(999.5))
  const c = before.execs.find((e) => e.exec === 'c')
  assert.equal(c?.writtenAfterPause, true)
  assert.ok((c?.line ?? Infinity) < 0, 'placed before the stop line')
  assert.deepEqual(checkNoDoubleStarts('began before', before).late, 0)
  // Begun after the cont (by its own clock): a start after the pause, failed as such.
  assert.throws(() => checkNoDoubleStarts('began after', timelineOf(ledgerText(7000.4))), /1 steps/)
})

/**
 * The shape CI met: pid 1 begins step 0, is paused past its lease, continued; pid 2, which
 * claimed the run once the lease lapsed, begins step 0 just after the cont while pid 1's body
 * (begun before the pause) is still running.
 */
function takeoverAfterCont(paused: boolean): Timeline {
  return {
    execs: [exec(0, 1, 1, 9, 0.1), exec(0, 2, 6, 8, 0.1)],
    pauses: paused ? [{ pid: 1, from: 2, to: 5, contAt: null }] : [],
    deaths: new Map(),
  }
}

void test('a takeover begun after the cont while the resumed body runs is the documented window', () => {
  const counts = checkNoDoubleStarts('takeover after cont', takeoverAfterCont(true))
  assert.deepEqual(counts, { late: 0, concurrent: 0, resumed: 1, stalled: 0 })
})

void test('a start while another process runs the step, with no pause between, fails', () => {
  assert.throws(
    () => checkNoDoubleStarts('no pause', takeoverAfterCont(false)),
    /1 steps started while another process ran the same step/,
  )
  // A pause of pid 1 that began after pid 2's start lapses nothing pid 2 could have claimed.
  const late = takeoverAfterCont(true)
  late.pauses = [{ pid: 1, from: 7, to: 8.5, contAt: null }]
  assert.throws(() => checkNoDoubleStarts('pause after', late), /1 steps started while/)
})
