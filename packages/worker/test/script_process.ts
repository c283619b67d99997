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

/**
 * The script of a worker half's process, around `build` (code ending with `const worker = …`
 * and an `errors` array its onError fills; its last argument is the mode): in `held` mode it
 * opens, takes one `close-test` task, prints `held <n>` and waits for the word (told when the
 * backend stopped answering) before it closes; otherwise it closes while opening and prints
 * `open opened|failed`. Then `closed <errors as JSON>` — and it must exit on its own.
 */
export function closingWorkerScript(build: string): string {
  return `${build}
const mode = process.argv.at(-1)
const say = (line) => process.stdout.write(line + '\\n')
if (mode === 'held') {
  await worker.open()
  const signal = new AbortController().signal
  const held = await worker.receive({ steps: ['close-test'], capabilities: [], max: 1, holdMs: 30000, signal })
  say(\`held \${held.length}\`)
  await new Promise((resolve) => process.stdin.once('data', resolve))
  process.stdin.destroy()
  await worker.close()
} else {
  const opening = worker.open().then(() => 'opened', () => 'failed')
  await worker.close()
  say(\`open \${await opening}\`)
}
say(\`closed \${JSON.stringify(errors)}\`)
`
}
