/**
 * An engine in the test process on the same SQLite file as the fixture app: it starts and reads
 * runs and never drives (its bodies throw if anything ever executed them here).
 */
import type { TestContext } from 'node:test'
import { Engine, silentLogger, type Clock } from '@cairn/core'
import { SqliteStore } from '@cairn/sql/sqlite'

export async function clientEngine(
  t: TestContext,
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
