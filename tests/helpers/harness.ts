/**
 * Engine-test plumbing: run a test body once per selected store with a fake clock, and
 * build extra engines on the same store (a second process, a restarted one).
 */
import { describe, test } from 'node:test'
import { Engine, silentLogger, type EngineOptions } from '@cairn/core'
import { FakeClock, settle } from '@cairn/core/testing'
import { openStore, selectedStores, type StoreHandle } from './stores.ts'

export interface Env {
  storeName: string
  handle: StoreHandle
  clock: FakeClock
  /** A new engine on this test's store and clock (started driving unless `drive: false`). */
  engine(options?: Partial<EngineOptions> & { drive?: boolean }): Promise<Engine>
  /** Move the fake clock, firing timers and letting engines react. */
  skip(ms: number): Promise<void>
  settle(): Promise<void>
}

export function eachStore(
  title: string,
  body: (t: (name: string, fn: (env: Env) => Promise<void>) => void) => void,
): void {
  for (const storeName of selectedStores()) {
    void describe(`${title} [${storeName}]`, () => {
      body((name, fn) => void test(name, () => withEnv(storeName, fn)))
    })
  }
}

async function withEnv(storeName: string, fn: (env: Env) => Promise<void>): Promise<void> {
  const handle = openStore(storeName)
  const clock = new FakeClock()
  const engines: Engine[] = []
  const env: Env = {
    storeName,
    handle,
    clock,
    async engine(options = {}) {
      const { drive = true, ...rest } = options
      const store = engines.length === 0 ? handle.store : handle.reopen()
      const engine = new Engine({
        store,
        clock,
        logger: silentLogger,
        instanceId: `engine-${engines.length + 1}`,
        ...rest,
      })
      engines.push(engine)
      if (drive) await engine.startDriving()
      return engine
    },
    skip: (ms) => clock.advance(ms),
    settle: () => settle(),
  }
  try {
    await fn(env)
  } finally {
    for (const engine of engines) await engine.close(50).catch(() => {})
    await handle.cleanup()
  }
}
