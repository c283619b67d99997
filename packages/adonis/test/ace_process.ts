/**
 * Runs this package's Ace commands in the fixture app (test/fixtures/real_app) the way
 * `node ace …` does: bin/console.ts under @poppinss/ts-exec, in a child process, against the
 * SQLite file the test gives. Output is collected without colours.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { setTimeout as delay } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { stripVTControlCharacters } from 'node:util'

const APP_ROOT = fileURLToPath(new URL('./fixtures/real_app/', import.meta.url))
const CONSOLE = fileURLToPath(new URL('./fixtures/real_app/bin/console.ts', import.meta.url))
/** A guard against a hung child, not a performance bound: it fails the test with the output. */
const HANG_GUARD_MS = 90_000

export interface Exit {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

export interface AceProcess {
  child: ChildProcess
  stdout(): string
  /** Resolves with the stdout so far once it matches `pattern`; rejects if the child exits first. */
  waitForOutput(pattern: RegExp): Promise<string>
  exited: Promise<Exit>
}

export function startAce(args: string[], db: string, env: Record<string, string> = {}): AceProcess {
  const child = spawn(process.execPath, ['--import=@poppinss/ts-exec', CONSOLE, ...args], {
    cwd: APP_ROOT,
    env: { ...process.env, CAIRN_TEST_DB: db, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += stripVTControlCharacters(chunk.toString())))
  child.stderr.on('data', (chunk: Buffer) => (stderr += stripVTControlCharacters(chunk.toString())))
  const guard = setTimeout(() => child.kill('SIGKILL'), HANG_GUARD_MS)
  const exited = new Promise<Exit>((resolve) =>
    child.on('close', (code, signal) => {
      clearTimeout(guard)
      resolve({ code, signal, stdout, stderr })
    }),
  )
  let done = false
  void exited.then(() => (done = true))
  return {
    child,
    stdout: () => stdout,
    exited,
    async waitForOutput(pattern) {
      while (!pattern.test(stdout)) {
        if (done) throw new Error(`exited before printing ${pattern}:\n${stdout}\n${stderr}`)
        await delay(20)
      }
      return stdout
    },
  }
}

/** Runs one command to completion. */
export function runAce(
  args: string[],
  db: string,
  env: Record<string, string> = {},
): Promise<Exit> {
  return startAce(args, db, env).exited
}

/** Resolves once `path` exists (a fixture step writes it). */
export async function fileAppears(path: string, child: AceProcess): Promise<void> {
  while (!existsSync(path)) {
    if (child.child.exitCode !== null) throw new Error(`exited before ${path} appeared`)
    await delay(20)
  }
}
