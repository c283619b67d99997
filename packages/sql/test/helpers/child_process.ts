/** Child Node processes running a script from test/children, read line by line. */
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { createInterface } from 'node:readline'

export interface Child {
  process: ChildProcess
  /** Every stdout line so far. */
  lines: string[]
  /** Resolves with the exit code (or the signal) once the child is gone. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  /** Resolves once a line satisfying `predicate` has been printed. */
  waitForLine(predicate: (line: string) => boolean): Promise<string>
  stderr(): string
}

export function startChild(script: string, args: string[]): Child {
  const path = fileURLToPath(new URL(`../children/${script}`, import.meta.url))
  const child = spawn(process.execPath, [path, ...args], { stdio: ['pipe', 'pipe', 'pipe'] })
  const lines: string[] = []
  const waiters: Array<{ predicate: (line: string) => boolean; resolve: (line: string) => void }> =
    []
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  createInterface({ input: child.stdout }).on('line', (line) => {
    lines.push(line)
    for (const waiter of waiters.filter((w) => w.predicate(line))) {
      waiters.splice(waiters.indexOf(waiter), 1)
      waiter.resolve(line)
    }
  })
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  )
  return {
    process: child,
    lines,
    exited,
    stderr: () => stderr,
    waitForLine: (predicate) => {
      const seen = lines.find(predicate)
      if (seen !== undefined) return Promise.resolve(seen)
      return new Promise((resolve, reject) => {
        waiters.push({ predicate, resolve })
        void exited.then(({ code, signal }) =>
          reject(
            new Error(`child ${script} exited (${code ?? signal}) before the line: ${stderr}`),
          ),
        )
      })
    },
  }
}
