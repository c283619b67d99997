/**
 * engine.close() does not wait for ever on a transport whose own close never returns (its
 * Redis or database stopped answering): after TRANSPORT_CLOSE_MS it logs the transport and
 * closes without it. A close that hung would be failed by the test's timeout.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Engine } from '../src/engine/engine.ts'
import { MemoryStore } from '../src/store/index.ts'
import { createMemoryTransport } from '../src/testing/index.ts'
import type { Logger } from '../src/contracts/logger.ts'

void test(
  "engine.close returns when a transport's close never does",
  { timeout: 60_000 },
  async () => {
    const inner = createMemoryTransport().engine()
    const stuck = new Proxy(inner, {
      get(target, key, receiver) {
        if (key === 'close') return () => new Promise<never>(() => {})
        const value: unknown = Reflect.get(target, key, receiver)
        return typeof value === 'function' ? value.bind(target) : value
      },
    })
    const errors: string[] = []
    const logger: Logger = {
      debug: () => {},
      info: () => {},
      warn: () => {},
      error: (_obj, msg) => errors.push(msg ?? ''),
    }
    const engine = new Engine({ store: new MemoryStore(), logger, transports: { memory: stuck } })
    engine.registerStep('render', () => 'done', { transport: 'memory' })
    await engine.startDriving() // consuming results opens the transport
    await engine.close(0)
    assert.deepEqual(errors, ['a transport did not close in time; the engine closes without it'])
  },
)
