/**
 * Reading a fault test's effect ledger: one append-only file that step bodies in every engine
 * process write to (`exec` as a body starts, `done` as it returns), and the test itself marks
 * (`stop`/`cont` around a SIGSTOP pause, `dead` after a SIGKILL). Each line is one small
 * O_APPEND write, so line order is the order things happened, across processes.
 *
 *   exec <runId> <step> <attempt> <pid> <execId> [<stallMs> <startedAt>]
 *   done <execId>
 *   stop <pid> [<at>] | cont <pid> [<at>] | dead <pid> [<at>]
 *
 * `startedAt` and `at` are `performance.timeOrigin + performance.now()` in the writing process:
 * one time line across the processes of this machine, good to well under a millisecond. A body
 * writes its `exec` line a few syscalls after it began, so a SIGSTOP can land in between: the
 * line then comes after the process's `cont`, though the body began before the stop. Such an
 * exec is put back where it began (just before the `stop`) by its `startedAt`: line order alone
 * would call it a start after the pause.
 */
import { appendFileSync, readFileSync } from 'node:fs'

export interface Exec {
  runId: string
  step: number
  attempt: number
  pid: number
  exec: string
  /** Line number of the start: time order (see above). */
  line: number
  /** Line number of its `done`, or null (cut short by a kill, or still running). */
  end: number | null
  /**
   * How long after its engine's lease check (`step:started`'s `leaseCheckedAt`) the body began, in ms;
   * null when not recorded. Normally microseconds: the two are one synchronous stretch of code.
   */
  stallMs: number | null
  /** When the body began (see above), or null when not recorded. */
  startedAt: number | null
  /** Its line came after its process's `cont`, but the body began before the `stop` (above). */
  writtenAfterPause?: boolean
}

/** A process the test paused: from its `stop` line to its `cont` line. */
export interface Pause {
  pid: number
  from: number
  to: number
  /** When the test sent SIGCONT (`at` of the `cont` line), or null when not recorded. */
  contAt: number | null
}

export interface Timeline {
  execs: Exec[]
  pauses: Pause[]
  /** The `dead` line of each process the test killed. */
  deaths: Map<number, number>
}

/** The executions of the ledger at `path`, in order. */
export function readLedger(path: string): Exec[] {
  return readTimeline(path).execs
}

export function readTimeline(path: string): Timeline {
  const lines = readFileSync(path, 'utf8').split('\n').filter(Boolean)
  const execs: Exec[] = []
  const byId = new Map<string, Exec>()
  const pauses: Pause[] = []
  const stopped = new Map<number, number>()
  const deaths = new Map<number, number>()
  lines.forEach((text, line) => {
    const [kind, ...fields] = text.split(' ')
    if (kind === 'exec') {
      const [runId, step, attempt, pid, exec, stall, startedAt] = fields
      const entry = {
        runId: runId as string,
        step: Number(step),
        attempt: Number(attempt),
        pid: Number(pid),
        exec: exec as string,
        line,
        end: null,
        stallMs: stall === undefined || stall === '-' ? null : Number(stall),
        startedAt: startedAt === undefined ? null : Number(startedAt),
      }
      execs.push(entry)
      byId.set(entry.exec, entry)
    } else if (kind === 'done') {
      const entry = byId.get(fields[0] as string)
      if (entry === undefined) throw new Error(`ledger line ${line}: done of an unknown exec`)
      entry.end = line
    } else if (kind === 'stop') stopped.set(Number(fields[0]), line)
    else if (kind === 'cont') {
      const pid = Number(fields[0])
      const contAt = fields[1] === undefined ? null : Number(fields[1])
      pauses.push({ pid, from: stopped.get(pid) ?? line, to: line, contAt })
      stopped.delete(pid)
    } else if (kind === 'dead') deaths.set(Number(fields[0]), line)
    else throw new Error(`bad ledger line ${line}: ${text}`)
  })
  for (const e of execs) placeAtStart(e, pauses)
  return { execs, pauses, deaths }
}

/**
 * An exec written after its process's `cont` whose body began well before that `cont` began
 * before the `stop` (nothing runs in between): its place is just before the `stop` line.
 */
function placeAtStart(e: Exec, pauses: readonly Pause[]): void {
  if (e.startedAt === null) return
  const pause = pauses.filter((p) => p.pid === e.pid && p.to < e.line).at(-1)
  if (pause === undefined || pause.contAt === null) return
  // A second is far above the clocks' disagreement and far below any pause the tests make.
  if (e.startedAt >= pause.contAt - 1_000) return
  e.line = pause.from - 0.5
  e.writtenAfterPause = true
}

/** The test's own marks: call right after the fact (a SIGSTOP took effect, a kill returned). */
export function markLedger(path: string, kind: 'stop' | 'cont' | 'dead', pid: number): void {
  appendFileSync(path, `${kind} ${pid} ${ledgerNow().toFixed(1)}\n`)
}

/** The ledger's time line (see above). */
export function ledgerNow(): number {
  return performance.timeOrigin + performance.now()
}

/** Executions grouped by `runId/step`, in ledger order. */
export function byStep(execs: readonly Exec[]): Map<string, Exec[]> {
  const map = new Map<string, Exec[]>()
  for (const e of execs) {
    const key = `${e.runId}/${e.step}`
    const list = map.get(key) ?? []
    list.push(e)
    map.set(key, list)
  }
  return map
}
