/**
 * The remote-step fault tests' rig: an engine in this process on a fresh store (Postgres or
 * MariaDB, or SQLite on the db transport), its transport (transport_spec.ts), worker processes
 * (worker_process.ts) that write a ledger of their step bodies, and cleanup of all of it.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Engine, silentLogger } from '@cairn/core'
import { openStore } from '../helpers/stores.ts'
import { specFor, transportOf, type TransportKind, type TransportSpec } from './transport_spec.ts'

const WORKER = fileURLToPath(new URL('./worker_process.ts', import.meta.url))

export interface Fleet {
  engine: Engine
  /**
   * Starts a worker process whose step bodies take `workMs`, offering `capabilities`; resolves
   * once it takes tasks.
   */
  startWorker(workMs: number, capabilities?: readonly string[]): Promise<ChildProcess>
  /** The ledger's lines: `start|end <runId> <pid>`. */
  ledger(): string[]
  /** The transport, as a child process is handed it. */
  spec: TransportSpec
}

export async function fleet(
  t: { after(fn: () => Promise<void>): void },
  storeName: string,
  transportKind: TransportKind = 'bullmq',
  /** The capabilities step `slow` requires (none by default). */
  requires: readonly string[] = [],
): Promise<Fleet> {
  const handle = await openStore(storeName)
  const { spec, cleanup } = await specFor(transportKind, handle.location)
  const dir = mkdtempSync(join(tmpdir(), 'cairn-fleet-'))
  const ledgerPath = join(dir, 'ledger')
  const transport = await transportOf(spec)
  const engine = new Engine({
    store: handle.store,
    logger: silentLogger,
    transports: { remote: transport.engine() },
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
    await cleanup()
    rmSync(dir, { recursive: true, force: true })
  })
  engine.registerStep('slow', () => 'not here', {
    transport: 'remote',
    retries: 0,
    requires: [...requires],
  })
  engine.register('job', 1, async (ctx, n: number) => ctx.step<string>('slow', { n }))
  await engine.startDriving()
  return {
    engine,
    startWorker: (workMs, capabilities = []) =>
      startWorker(children, spec, ledgerPath, workMs, capabilities),
    ledger: () => readLedger(ledgerPath),
    spec,
  }
}

export async function startWorker(
  children: ChildProcess[],
  spec: TransportSpec,
  ledger: string,
  workMs: number,
  capabilities: readonly string[] = [],
): Promise<ChildProcess> {
  const args = [WORKER, JSON.stringify(spec), ledger, String(workMs), capabilities.join(',')]
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] })
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
