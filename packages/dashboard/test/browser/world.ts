/**
 * A real world for the browser tests: an engine on a fresh SQLite file (or a store the test
 * gives) driving the test workflows, and the real dashboard handler served on 127.0.0.1 on a
 * free port.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Engine, silentLogger, type RetentionOptions } from '@cairn/core'
import type { EngineTransport, StateStore } from '@cairn/core/contracts'
import { SqliteStore } from '@cairn/sql/sqlite'
import { createDashboard, serveDashboard } from '../../src/index.ts'
import { createGate, registerWorkflows, type Controls } from './workflows.ts'

export interface World {
  engine: Engine
  controls: Controls
  /** The console's address, ending in '/'. */
  url: string
  /** The SQLite file of the engine's store: another engine (another clock) can open it. */
  dbPath: string
  close(): Promise<void>
}

export interface WorldOptions {
  /** Token mode: the console must log in with one of these. Default: open (development). */
  tokens?: string[]
  /** Every action answers 403. */
  readOnly?: boolean
  /** The engine's parkUnrunnableAfterMs (default: the engine's). */
  parkUnrunnableAfterMs?: number
  /** The engine's transports (remote steps). Default none. */
  transports?: Record<string, EngineTransport>
  /** The engine's retention policies. Default none. */
  retention?: RetentionOptions
  /** The engine's store. Default: SQLite on `dbPath`. */
  store?: StateStore
}

export async function startWorld(options: WorldOptions = {}): Promise<World> {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-console-'))
  const dbPath = join(dir, 'cairn.db')
  const engine = new Engine({
    store: options.store ?? new SqliteStore({ path: dbPath }),
    logger: silentLogger,
    pollIntervalMs: 200,
    ...(options.transports === undefined ? {} : { transports: options.transports }),
    ...(options.retention === undefined ? {} : { retention: options.retention }),
    ...(options.parkUnrunnableAfterMs === undefined
      ? {}
      : { parkUnrunnableAfterMs: options.parkUnrunnableAfterMs }),
  })
  const controls: Controls = {
    paymentsUp: false,
    chargeGate: createGate(),
    reservations: 0,
    releases: 0,
  }
  registerWorkflows(engine, controls)
  await engine.startDriving()
  const dashboard = createDashboard({
    engine,
    readOnly: options.readOnly ?? false,
    ...(options.tokens ? { auth: { tokens: options.tokens } } : { development: true }),
  })
  const server = await serveDashboard(dashboard, { port: 0, host: '127.0.0.1' })
  const url = server.url.endsWith('/') ? server.url : `${server.url}/`
  return {
    engine,
    controls,
    url,
    dbPath,
    close: async () => {
      controls.chargeGate.open()
      await server.close()
      await dashboard.close()
      await engine.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
