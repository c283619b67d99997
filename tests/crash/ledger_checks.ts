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
 * - resumedOverlaps: an execution that was in flight when its process was paused, and ran on
 *   after the pause while another process's execution of that step (a takeover begun during
 *   the pause, or after it but before the resumed body returned) was running. Not counted
 *   above on purpose: the pause tests pause past the lease, so from the pause on the body runs
 *   on a lapsed lease another engine may claim — the documented window of at-least-once (a
 *   body in flight at a pause finishes when the process continues; its result is fenced).
 *   Reported, so it is seen.
 * - stalledStarts (pause tests only): a late or concurrent start whose body began long after
 *   its engine's lease check (`stallMs` ≥ STALL_MS): the process was stopped between the check
 *   and the body's first instruction — the other side of the same documented window
 *   (docs/reliability.md). Reported, not failed; a start with no such stall is failed.
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
          !pausedAt(x.pid, y.line, timeline.pauses) &&
          !lapsedInPause(x, y.line, timeline),
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
        list.some(
          (y) =>
            y.pid !== x.pid &&
            p.from < y.line &&
            y.line < endOf(x, timeline) &&
            endOf(y, timeline) > p.to,
        ),
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

/** `x` was in flight when its process was paused, before `line`: its lease lapsed there. */
function lapsedInPause(x: Exec, line: number, timeline: Timeline): boolean {
  return timeline.pauses.some(
    (p) => p.pid === x.pid && x.line < p.from && p.from < line && p.from < endOf(x, timeline),
  )
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
/**
 * A body that began this long after its lease check was stalled in between: the check and the
 * body are one synchronous stretch of code (microseconds), so only a stopped or starved
 * process takes this long — far below the tests' pauses (seconds), far above any scheduling.
 */
export const STALL_MS = 500

const stalled = (e: Exec | undefined) => e?.stallMs != null && e.stallMs >= STALL_MS

export function checkNoDoubleStarts(
  label: string,
  timeline: Timeline,
): { late: number; concurrent: number; resumed: number; stalled: number } {
  const byLine = new Map(timeline.execs.map((e) => [e.line, e]))
  const allLate = lateReruns(timeline.execs)
  const allConcurrent = concurrentStarts(timeline)
  const late = allLate.filter((l) => !stalled(byLine.get(l.lateLine)))
  const concurrent = allConcurrent.filter((e) => !stalled(e))
  const resumed = resumedOverlaps(timeline)
  const relocated = timeline.execs.filter((e) => e.writtenAfterPause === true).length
  const counts = {
    late: late.length,
    concurrent: concurrent.length,
    resumed: resumed.length,
    stalled: allLate.length - late.length + allConcurrent.length - concurrent.length,
  }
  console.log(
    `${label}: ${timeline.execs.length} step executions; ${counts.late} started after their ` +
      `successor, ${counts.concurrent} started while another process ran the same step, ` +
      `${counts.resumed} paused in flight and resumed into a takeover, ${counts.stalled} ` +
      `stalled between the lease check and the body, ${relocated} written after the pause by ` +
      `bodies begun before it`,
  )
  const story = (runId: string | undefined) =>
    runId === undefined ? '' : runStory(runId, timeline)
  assert.deepEqual(
    late.slice(0, 5),
    [],
    `${counts.late} steps started after their successor\n${story(late[0]?.runId)}`,
  )
  assert.deepEqual(
    concurrent.slice(0, 5),
    [],
    `${counts.concurrent} steps started while another process ran the same step\n${story(concurrent[0]?.runId)}`,
  )
  return counts
}

/**
 * Everything the ledger says about one run, in order, with the pauses and deaths around it:
 * what a failure needs to be understood once the test's database is gone.
 */
export function runStory(runId: string, timeline: Timeline): string {
  const execs = timeline.execs.filter((e) => e.runId === runId)
  const first = Math.min(...execs.map((e) => e.line))
  const last = Math.max(...execs.map((e) => e.end ?? e.line))
  const events = [
    ...execs.map((e) => ({
      line: e.line,
      text: `exec step ${e.step} attempt ${e.attempt} pid ${e.pid}${e.stallMs === null ? '' : ` (${e.stallMs} ms after its lease check)`}${e.writtenAfterPause === true ? ' (began before the stop, written after the cont)' : ''} → ${e.end === null ? 'no done' : `done at line ${e.end}`}`,
    })),
    ...timeline.pauses
      .filter((p) => p.to >= first && p.from <= last)
      .map((p) => ({ line: p.from, text: `pid ${p.pid} paused until line ${p.to}` })),
    ...[...timeline.deaths]
      .filter(([, line]) => line >= first && line <= last)
      .map(([pid, line]) => ({ line, text: `pid ${pid} killed` })),
  ].sort((a, b) => a.line - b.line)
  return [`run ${runId}:`, ...events.map((e) => `  line ${e.line}: ${e.text}`)].join('\n')
}
