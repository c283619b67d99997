/**
 * Starts the shop as `npm start` does (bin/start.ts under @poppinss/ts-exec: the web server and
 * its worker, from the app's directory), in a child process on a free port (PORT=0; the
 * port is read from the line the server prints), on the database the test chooses. Stopped
 * (SIGTERM) when the test ends.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TestContext } from 'node:test'
import { fileURLToPath } from 'node:url'

const APP_ROOT = fileURLToPath(new URL('../../', import.meta.url))
const LISTENING = /Cairn shop listening on (http:\/\/\S+)/
const BOOT_LIMIT_MS = 120_000
/** Longer than any drain the shop is configured with (its server and worker drain in parallel). */
const STOP_LIMIT_MS = 60_000

export interface ShopServer {
  url: string
  /** Everything the process printed so far (stdout and stderr). */
  output(): string
  /** Resolves once the process printed a line matching `pattern`. */
  printed(pattern: RegExp): Promise<void>
  /** SIGKILL: no drain, no cleanup, like a crash. Resolves once the process is gone. */
  crash(): Promise<void>
}

/** A temp directory for the test's SQLite database, removed when the test ends. */
export async function tempDatabase(t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'cairn-shop-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  return join(dir, 'shop.sqlite3')
}

/**
 * How the shop is launched: by default bin/start.ts, directly — the web server and its worker
 * (`node ace durable:worker`, which runs the charge step), in one process group.
 */
export interface Launch {
  command: string
  args: string[]
  cwd: string
}

const DIRECT: Launch = {
  command: process.execPath,
  args: ['--import=@poppinss/ts-exec', 'bin/start.ts'],
  cwd: APP_ROOT,
}

export async function startShop(
  t: TestContext,
  env: Record<string, string>,
  launch: Launch = DIRECT,
): Promise<ShopServer> {
  const child = spawn(launch.command, launch.args, {
    cwd: launch.cwd,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so a launch through a shell is signalled as a whole.
    detached: true,
  })
  let output = ''
  const listeners = new Set<() => void>()
  const onData = (chunk: Buffer) => {
    output += chunk.toString()
    for (const listener of listeners) listener()
  }
  child.stdout!.on('data', onData)
  child.stderr!.on('data', onData)
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  t.after(() => stop(child, exited))

  const printed = (pattern: RegExp) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (pattern.test(output)) {
          listeners.delete(check)
          resolve()
        } else if (child.exitCode !== null || child.signalCode !== null) {
          listeners.delete(check)
          reject(new Error(`the shop exited before printing ${pattern}:\n${output}`))
        }
      }
      listeners.add(check)
      child.once('exit', check)
      check()
    })

  await withLimit(printed(LISTENING), BOOT_LIMIT_MS, () => `the shop did not start:\n${output}`)
  return {
    url: LISTENING.exec(output)![1]!,
    output: () => output,
    printed,
    async crash() {
      signalGroup(child, 'SIGKILL')
      await exited
    },
  }
}

/**
 * SIGTERM, then wait for the shop (its server and worker drain) — up to STOP_LIMIT_MS: a shop
 * that does not stop is killed and the test fails saying so, rather than holding the test
 * file (and CI) open forever (a `durable:worker` once stayed up for an hour after SIGTERM).
 */
async function stop(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  signalGroup(child, 'SIGTERM')
  try {
    await withLimit(
      exited,
      STOP_LIMIT_MS,
      () => `the shop did not stop within ${STOP_LIMIT_MS} ms of SIGTERM`,
    )
  } catch (error) {
    signalGroup(child, 'SIGKILL')
    await exited
    throw error
  }
}

/** Signals the child's process group (the server, and the shell that started it if any). */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error
  }
}

/** A safety net for a test that would otherwise hang, not a timing assertion. */
export async function withLimit<T>(
  promise: Promise<T>,
  limitMs: number,
  describe: () => string,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(describe())), limitMs)
  })
  try {
    return await Promise.race([promise, limit])
  } finally {
    clearTimeout(timer)
  }
}
