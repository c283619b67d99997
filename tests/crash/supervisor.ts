/**
 * Starts, kills and restarts crash-test engine processes. The child is killed with SIGKILL
 * (no cleanup, no drain), by the supervisor at random moments or by itself at a failpoint.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const engineScript = fileURLToPath(new URL('./engine_process.ts', import.meta.url))

export interface EngineChild {
  child: ChildProcess
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

export async function spawnEngine(env: Record<string, string>): Promise<EngineChild> {
  const child = spawn(process.execPath, [engineScript], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  )
  await Promise.race([ready(child), exited.then(() => undefined)])
  return { child, exited }
}

function ready(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let buffer = ''
    const timer = setTimeout(
      () => reject(new Error('engine process did not start within 15s')),
      15_000,
    )
    child.stdout?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString()
      if (buffer.includes('ready\n')) {
        clearTimeout(timer)
        resolve()
      }
    })
  })
}

export async function kill(engine: EngineChild): Promise<void> {
  engine.child.kill('SIGKILL')
  await engine.exited
}

export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
