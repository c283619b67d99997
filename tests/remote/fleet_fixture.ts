/**
 * The remote-step fault tests' rig: an engine in this process on a fresh store (Postgres or
 * MariaDB), the BullMQ transport under a prefix of its own, worker processes
 * (worker_process.ts) that write a ledger of their step bodies, and cleanup of all of it.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Engine, silentLogger } from '@cairn/core'
import { bullmqTransport } from '@cairn/bullmq'
import { openStore } from '../helpers/stores.ts'
import { REDIS_URL } from '../helpers/services.ts'
import { dropPrefix, uniquePrefix } from '../../packages/bullmq/test/redis_fixture.ts'

const WORKER = fileURLToPath(new URL('./worker_process.ts', import.meta.url))

export interface Fleet {
  engine: Engine
  /** Starts a worker process whose step bodies take `workMs`; resolves once it takes tasks. */
  startWorker(workMs: number): Promise<ChildProcess>
  /** The ledger's lines: `start|end <runId> <pid>`. */
  ledger(): string[]
}

export async function fleet(
  t: { after(fn: () => Promise<void>): void },
  storeName: string,
): Promise<Fleet> {
  const handle = await openStore(storeName)
  const prefix = uniquePrefix()
  const dir = mkdtempSync(join(tmpdir(), 'cairn-fleet-'))
  const ledgerPath = join(dir, 'ledger')
  const transport = bullmqTransport({ connection: REDIS_URL, prefix, stalledIntervalMs: 250 })
  const engine = new Engine({
    store: handle.store,
    logger: silentLogger,
    transports: { redis: transport.engine() },
  })
  const children: ChildProcess[] = []
  t.after(async () => {
    for (const child of children) {
      if (child.exitCode !== null || child.signalCode !== null) continue
      child.kill('SIGCONT')
      child.kill('SIGKILL')
    }
    await engine.close()
    await handle.cleanup()
    await dropPrefix(prefix)
    rmSync(dir, { recursive: true, force: true })
  })
  engine.registerStep('slow', () => 'not here', { transport: 'redis', retries: 0 })
  engine.register('job', 1, async (ctx, n: number) => ctx.step<string>('slow', { n }))
  await engine.startDriving()
  return {
    engine,
    startWorker: (workMs) => startWorker(children, prefix, ledgerPath, workMs),
    ledger: () => readLedger(ledgerPath),
  }
}

export async function startWorker(
  children: ChildProcess[],
  prefix: string,
  ledger: string,
  workMs: number,
): Promise<ChildProcess> {
  const child = spawn(process.execPath, [WORKER, REDIS_URL, prefix, ledger, String(workMs)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  children.push(child)
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`worker exited ${code} before ready`)))
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) resolve()
    })
  })
  return child
}

export function readLedger(path: string): string[] {
  try {
    return readFileSync(path, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
  } catch {
    return []
  }
}

export async function until(done: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
