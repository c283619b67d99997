/**
 * Engine-test plumbing: run a test body once per selected store with a fake clock, and
 * build extra engines on the same store (a second process, a restarted one).
 */
import { describe, test } from 'node:test'
import { Engine, silentLogger, type EngineOptions } from '@cairn/core'
import { FakeClock, settle } from '@cairn/core/testing'
import { openStore, selectedStores, type StoreHandle } from './stores.ts'

// Probed once per test file (module top-level await): which stores this run exercises.
const STORES = await selectedStores()

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

/** Which stores a test is for (by name); the others report it skipped, never passed. */
export type StoreSelector = (storeName: string) => boolean

export function eachStore(
  title: string,
  body: (t: (name: string, fn: (env: Env) => Promise<void>, only?: StoreSelector) => void) => void,
): void {
  for (const storeName of STORES) {
    void describe(`${title} [${storeName}]`, () => {
      body((name, fn, only) => {
        const skip = only !== undefined && !only(storeName) ? `not for ${storeName}` : false
        void test(name, { skip }, () => withEnv(storeName, fn))
      })
    })
  }
}

async function withEnv(storeName: string, fn: (env: Env) => Promise<void>): Promise<void> {
  const handle = await openStore(storeName)
  const clock = new FakeClock()
  const engines: Engine[] = []
  // Between timer firings, wait until every engine has nothing in flight: the same test then
  // holds on an in-process store and on a server with real I/O latency.
  const quiet = async () => {
    await settle()
    await Promise.all(engines.map((engine) => engine.whenQuiet()))
  }
  clock.settler = quiet
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
        // Long fake-time skips (a day) fire every periodic timer on the way; on a server store
        // each safety-net poll or park sweep is a round trip, so tests keep them rare.
        pollIntervalMs: 60_000,
        parkUnrunnableAfterMs: 3_600_000,
        ...rest,
      })
      engines.push(engine)
      if (drive) await engine.startDriving()
      return engine
    },
    skip: (ms) => clock.advance(ms),
    settle: quiet,
  }
  try {
    await fn(env)
  } finally {
    for (const engine of engines) await engine.close(50).catch(() => {})
    await handle.cleanup()
  }
}
