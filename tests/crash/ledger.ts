/** Reading the crash test's effect ledger: one line per step body execution. */
import { readFileSync } from 'node:fs'

export interface Exec {
  runId: string
  step: number
  attempt: number
  pid: number
  exec: string
  /** Line number: the ledger is append-only and one engine runs at a time, so this is time order. */
  line: number
}

export function readLedger(path: string): Exec[] {
  const lines = readFileSync(path, 'utf8').split('\n').filter(Boolean)
  return lines.map((text, line) => {
    const [kind, runId, step, attempt, pid, exec] = text.split(' ')
    if (kind !== 'exec') throw new Error(`bad ledger line ${line}: ${text}`)
    return {
      runId: runId as string,
      step: Number(step),
      attempt: Number(attempt),
      pid: Number(pid),
      exec: exec as string,
      line,
    }
  })
}

/** Executions grouped by `runId/step`, in ledger order. */
export function byStep(execs: Exec[]): Map<string, Exec[]> {
  const map = new Map<string, Exec[]>()
  for (const e of execs) {
    const key = `${e.runId}/${e.step}`
    const list = map.get(key) ?? []
    list.push(e)
    map.set(key, list)
  }
  return map
}
