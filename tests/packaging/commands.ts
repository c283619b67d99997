/**
 * Child processes for the packaging tests, run the way a user's shell runs them: no
 * NODE_OPTIONS (the workspace's `--conditions=cairn-source` would send an installed package
 * to sources it does not ship), Node 24 first on PATH, stdin closed, output kept for the
 * failure message.
 */
import { spawn } from 'node:child_process'
import { dirname } from 'node:path'

export interface CommandResult {
  code: number | null
  stdout: string
  stderr: string
}

export interface CommandOptions {
  cwd: string
  env?: Record<string, string>
  timeoutMs?: number
}

/** The environment of a user's terminal: this one, without what the test runner set. */
export function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra }
  delete env.NODE_OPTIONS
  delete env.NODE_TEST_CONTEXT
  delete env.npm_config_workspace
  env.PATH = `${dirname(process.execPath)}:${env.PATH ?? ''}`
  return env
}

export function run(
  command: string,
  args: string[],
  options: CommandOptions,
): Promise<CommandResult> {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: userEnv(options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: options.timeoutMs ?? 300_000,
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  return new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

/** Runs a command that must succeed; a failure throws with everything it printed. */
export async function mustRun(
  command: string,
  args: string[],
  options: CommandOptions,
): Promise<CommandResult> {
  const result = await run(command, args, options)
  if (result.code !== 0) {
    throw new Error(
      `\`${command} ${args.join(' ')}\` in ${options.cwd} exited ${result.code}\n` +
        `--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`,
    )
  }
  return result
}

export interface LongProcess {
  pid: number | undefined
  /** Everything printed so far (stdout and stderr, interleaved). */
  output(): string
  /** Resolves once the output matches `pattern`; rejects if the process exits first. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>
}

/** A server or worker the test starts, talks to, and stops. */
export function startProcess(
  command: string,
  args: string[],
  options: CommandOptions,
): LongProcess {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: userEnv(options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve))
  const collect = (chunk: Buffer) => (output += chunk.toString())
  child.stdout.on('data', collect)
  child.stderr.on('data', collect)
  return {
    pid: child.pid,
    output: () => output,
    waitFor: async (pattern, timeoutMs = 60_000) => {
      const deadline = Date.now() + timeoutMs
      while (!pattern.test(output)) {
        if (child.exitCode !== null)
          throw new Error(`${command} exited before ${pattern}:\n${output}`)
        if (Date.now() > deadline)
          throw new Error(`no ${pattern} after ${timeoutMs} ms:\n${output}`)
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    },
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM')
      return exited
    },
  }
}
