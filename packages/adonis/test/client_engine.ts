/**
 * An engine in the test process on the same SQLite file as the fixture app: it starts and reads
 * runs and never drives (its bodies throw if anything ever executed them here).
 */
import { Engine, silentLogger, type Clock } from '@cairn/core'
import { SqliteStore } from '@cairn/sql/sqlite'

/** Where the engine's close is registered: a test's context, or a suite's cleanup list. */
export interface Cleanup {
  after(fn: () => unknown): void
}

export async function clientEngine(
  t: Cleanup,
  db: string,
  options: { clock?: Clock } = {},
): Promise<Engine> {
  const engine = new Engine({
    store: new SqliteStore({ path: db }),
    logger: silentLogger,
    instanceId: 'test-client',
    ...options,
  })
  const notHere = () => {
    throw new Error('the test process must not execute runs')
  }
  engine.register('echo', 1, notHere)
  engine.register('gated', 1, notHere)
  await engine.open()
  t.after(() => engine.close(0))
  return engine
}
