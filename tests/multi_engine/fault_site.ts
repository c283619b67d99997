/**
 * What the several-engine fault tests share: a private site on a server (crash/server_sites.ts)
 * with an effect ledger, an engine log and a client engine that only reads and starts runs; and
 * questions about the leases engines hold.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Engine, silentLogger } from '@cairn/core'
import type { RunRecord, StateStore } from '@cairn/core/contracts'
import { createSite, type ServerKind, type ServerSite } from '../crash/server_sites.ts'
import { pause } from '../crash/supervisor.ts'

export interface FaultSite {
  site: ServerSite
  /** The effect ledger and the engines' log (CRASH_LEDGER, CRASH_LOG). */
  ledger: string
  log: string
  store: StateStore
  /** Starts and reads runs of `crash`; never drives. */
  client: Engine
  /** Environment for an engine process on this site (tests/crash/engine_process.ts). */
  engineEnv(instance: string, extra?: Record<string, string>): Record<string, string>
  /** Log lines of `instance` that say it lost a lease. */
  lostLeases(instance: string): string[]
  /** The engines' log lines about `runId`: what they noticed (lost leases, fenced writes). */
  logOf(runId: string): string[]
  /** Copies the ledger and the log out of the site (kept after drop); returns where. */
  keepFiles(): string
  drop(): Promise<void>
}

export async function openFaultSite(kind: ServerKind, prefix: string): Promise<FaultSite> {
  const site = await createSite(kind, prefix)
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`))
  const ledger = join(dir, 'ledger.txt')
  const log = join(dir, 'engines.log')
  writeFileSync(ledger, '')
  writeFileSync(log, '')
  const store = await site.openStore(4)
  const client = new Engine({ store, logger: silentLogger, instanceId: 'client' })
  client.register('crash', 1, async () => 0)
  return {
    site,
    ledger,
    log,
    store,
    client,
    engineEnv: (instance, extra = {}) => ({
      ...site.childEnv(),
      CRASH_LEDGER: ledger,
      CRASH_LOG: log,
      CRASH_INSTANCE: instance,
      ...extra,
    }),
    lostLeases: (instance) =>
      readFileSync(log, 'utf8')
        .split('\n')
        .filter((line) => line.includes(`"instance":"${instance}"`))
        .filter((line) => line.includes('lost a run lease')),
    logOf: (runId) =>
      readFileSync(log, 'utf8')
        .split('\n')
        .filter((line) => line.includes(`"runId":${JSON.stringify(runId)}`)),
    keepFiles: () => {
      const kept = mkdtempSync(join(tmpdir(), `${prefix}-kept-`))
      cpSync(dir, kept, { recursive: true })
      return kept
    },
    drop: async () => {
      await client.close(0)
      await site.drop()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** The runs leased to `owner` now (its `running` runs). */
export async function leasedTo(store: StateStore, owner: string): Promise<RunRecord[]> {
  const page = await store.listRuns({ status: 'running', limit: 1000 })
  return page.runs.filter((run) => run.leaseOwner === owner)
}

/** The runs of `held` that another claim took since they were read (their epoch moved on). */
export async function takenOver(
  store: StateStore,
  held: readonly RunRecord[],
): Promise<RunRecord[]> {
  const taken: RunRecord[] = []
  for (const run of held) {
    const now = await store.getRun(run.id)
    if (now !== null && now.leaseEpoch > run.leaseEpoch) taken.push(run)
  }
  return taken
}

export async function until(
  check: () => Promise<boolean>,
  timeoutMs: number,
  failure: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(failure)
    await pause(50)
  }
}
