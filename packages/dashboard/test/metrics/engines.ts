/** Engines for the metrics tests: one store per test, memory or SQLite, and a fake clock. */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Engine, MemoryStore, silentLogger, type EngineOptions } from '@cairn/core'
import type { StateStore } from '@cairn/core/contracts'
import { FakeClock, settle } from '@cairn/core/testing'
import { SqliteStore } from '@cairn/sql/sqlite'

export interface Env {
  clock: FakeClock
  store: StateStore
  engine(options?: Partial<EngineOptions> & { drive?: boolean }): Promise<Engine>
  settle(): Promise<void>
}

export const STORES = ['memory', 'sqlite'] as const

export async function withEnv(kind: (typeof STORES)[number], fn: (env: Env) => Promise<void>) {
  const dir = kind === 'sqlite' ? mkdtempSync(join(tmpdir(), 'cairn-metrics-')) : null
  const store: StateStore =
    dir === null ? new MemoryStore() : new SqliteStore({ path: join(dir, 'cairn.db') })
  const clock = new FakeClock()
  const engines: Engine[] = []
  const quiet = async () => {
    await settle()
    await Promise.all(engines.map((engine) => engine.whenQuiet()))
  }
  clock.settler = quiet
  const env: Env = {
    clock,
    store,
    settle: quiet,
    async engine(options = {}) {
      const { drive = true, ...rest } = options
      const engine = new Engine({
        store,
        clock,
        logger: silentLogger,
        instanceId: `engine-${engines.length + 1}`,
        pollIntervalMs: 60_000,
        ...rest,
      })
      engines.push(engine)
      if (drive) await engine.startDriving()
      return engine
    },
  }
  try {
    await fn(env)
  } finally {
    for (const engine of engines) await engine.close(50).catch(() => {})
    await store.close().catch(() => {})
    if (dir !== null) rmSync(dir, { recursive: true, force: true })
  }
}
