/**
 * A module run in a child process (`node -e`, with the cairn-source condition), for what only a
 * process of its own shows: that it exits once its work is closed, nothing left open. The test
 * talks to it through its output and one line on its stdin.
 */
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'

export interface ScriptProcess {
  /** Resolves once it printed a line matching `pattern`. */
  printed(pattern: RegExp): Promise<void>
  /** Writes a line to its stdin. */
  tell(): void
  /** Resolves when it exits: one that never does is failed by the test's timeout. */
  exited: Promise<{ code: number | null; output: string }>
}

export function startScript(
  t: { after(fn: () => void): void },
  code: string,
  args: string[],
): ScriptProcess {
  const child = spawn(process.execPath, ['--input-type=module', '-e', code, ...args], {
    env: { ...process.env, NODE_OPTIONS: '--conditions=cairn-source' },
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  t.after(() => child.kill('SIGKILL'))
  let output = ''
  const collect = (chunk: Buffer) => (output += chunk.toString())
  child.stdout.on('data', collect)
  child.stderr.on('data', collect)
  const exited = new Promise<{ code: number | null; output: string }>((resolve) =>
    child.on('close', (exitCode) => resolve({ code: exitCode, output })),
  )
  return {
    async printed(pattern) {
      while (!pattern.test(output)) {
        if (child.exitCode !== null) assert.fail(`the process exited early:\n${output}`)
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
    },
    tell: () => child.stdin.write('go\n'),
    exited,
  }
}
