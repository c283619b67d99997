/**
 * The schedule edge-case tests' world: one memory store, a FakeClock at a chosen start,
 * engines on it, and what they logged at warn and error. Schedule firing is engine logic (the
 * stores' own rules have the conformance suite), so one store is enough here.
 */
import { Engine, MemoryStore, silentLogger, type EngineOptions } from '@cairn/core'
import { FakeClock } from '@cairn/core/testing'

export function world(start: number | Date = Date.UTC(2030, 0, 1)) {
  const store = new MemoryStore()
  const clock = new FakeClock(start)
  const engines: Engine[] = []
  const logs: { level: string; obj: unknown; msg: string }[] = []
  const logger = {
    ...silentLogger,
    warn: (obj: unknown, msg: string) => void logs.push({ level: 'warn', obj, msg }),
    error: (obj: unknown, msg: string) => void logs.push({ level: 'error', obj, msg }),
  }
  return {
    store,
    clock,
    logs,
    async engine(options: Partial<EngineOptions> & { drive?: boolean } = {}) {
      const { drive = true, ...rest } = options
      const engine = new Engine({
        store,
        clock,
        logger: logger as never,
        instanceId: `engine-${engines.length + 1}`,
        pollIntervalMs: 60_000,
        parkUnrunnableAfterMs: 3_600_000,
        ...rest,
      })
      engines.push(engine)
      if (drive) await engine.startDriving()
      return engine
    },
    skip: (ms: number) => clock.advance(ms),
    async close() {
      for (const e of engines) await e.close(50).catch(() => {})
    },
  }
}
