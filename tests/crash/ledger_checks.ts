/**
 * What a fault test counts in its effect ledger (ledger.ts), per step of a run whose steps are
 * numbered 0, 1, 2, … in the order the workflow runs them:
 *
 * - lateReruns: a step that started after its successor had started — in any process. A
 *   successor starts only once its predecessor's checkpoint is committed, so this is a
 *   committed step running again: never allowed.
 * - concurrentStarts: a step that started while another execution of the same step was
 *   running in another process — running meaning started, not yet returned, its process
 *   neither paused nor killed at that moment. Never allowed: an engine starts user code only
 *   on a lease it holds.
 * - resumedOverlaps: an execution that was in flight when its process was paused, resumed
 *   while another process's execution of that step (a takeover during the pause) was still
 *   running. Not counted above on purpose: that is the documented window of at-least-once
 *   (a body in flight at a pause finishes when the process continues; its result is fenced).
 *   Reported, so it is seen.
 */
import assert from 'node:assert/strict'
import { byStep, type Exec, type Pause, type Timeline } from './ledger.ts'

/** A step of a run that started again after its successor had started. */
export interface LateRerun {
  runId: string
  step: number
  /** Ledger lines of the successor's first start and of the late start. */
  successorLine: number
  lateLine: number
}

export function lateReruns(execs: readonly Exec[]): LateRerun[] {
  const steps = byStep(execs)
  const late: LateRerun[] = []
  for (const [key, list] of steps) {
    const [runId, step] = splitKey(key)
    const successor = steps.get(`${runId}/${step + 1}`)?.[0]
    if (successor === undefined) continue
    for (const e of list)
      if (e.line > successor.line)
        late.push({ runId, step, successorLine: successor.line, lateLine: e.line })
  }
  return late
}

/** Executions that started while another process ran the same step (see above). */
export function concurrentStarts(timeline: Timeline): Exec[] {
  const found: Exec[] = []
  for (const list of byStep(timeline.execs).values()) {
    for (const y of list) {
      const clash = list.some(
        (x) =>
          x.pid !== y.pid &&
          x.line < y.line &&
          y.line < endOf(x, timeline) &&
          !pausedAt(x.pid, y.line, timeline.pauses),
      )
      if (clash) found.push(y)
    }
  }
  return found
}

/** Executions in flight at a pause of their process that resumed into a takeover (see above). */
export function resumedOverlaps(timeline: Timeline): Exec[] {
  const found: Exec[] = []
  for (const list of byStep(timeline.execs).values()) {
    for (const x of list) {
      const resumed = timeline.pauses.filter(
        (p) => p.pid === x.pid && x.line < p.from && p.from < endOf(x, timeline),
      )
      const overlaps = resumed.some((p) =>
        list.some((y) => y.pid !== x.pid && y.line < p.to && endOf(y, timeline) > p.to),
      )
      if (overlaps) found.push(x)
    }
  }
  return found
}

/** Where an execution stopped running: its `done`, its process's death, or never. */
function endOf(e: Exec, timeline: Timeline): number {
  return e.end ?? timeline.deaths.get(e.pid) ?? Number.POSITIVE_INFINITY
}

function pausedAt(pid: number, line: number, pauses: readonly Pause[]): boolean {
  return pauses.some((p) => p.pid === pid && p.from < line && line < p.to)
}

function splitKey(key: string): [string, number] {
  const at = key.lastIndexOf('/')
  return [key.slice(0, at), Number(key.slice(at + 1))]
}

/**
 * Prints the three counts for `label` and fails unless the first two are zero; returns them.
 * The executions that resumed into a takeover are reported, never failed (see above).
 */
export function checkNoDoubleStarts(
  label: string,
  timeline: Timeline,
): { late: number; concurrent: number; resumed: number } {
  const late = lateReruns(timeline.execs)
  const concurrent = concurrentStarts(timeline)
  const resumed = resumedOverlaps(timeline)
  const counts = { late: late.length, concurrent: concurrent.length, resumed: resumed.length }
  console.log(
    `${label}: ${timeline.execs.length} step executions; ${counts.late} started after their ` +
      `successor, ${counts.concurrent} started while another process ran the same step, ` +
      `${counts.resumed} paused in flight and resumed into a takeover`,
  )
  assert.deepEqual(late.slice(0, 5), [], `${counts.late} steps started after their successor`)
  assert.deepEqual(
    concurrent.slice(0, 5),
    [],
    `${counts.concurrent} steps started while another process ran the same step`,
  )
  return counts
}
