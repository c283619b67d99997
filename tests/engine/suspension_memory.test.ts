/**
 * A waiting run holds no lease and no memory in the engine: 10,000 runs waiting on signals
 * leave the engine's heap where 500 left it (bounded by concurrency, not by the number of
 * waiting runs), and each resumes on its own when signalled. SQLite store: the memory store
 * keeps its runs in the heap by design.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { Engine, silentLogger, type Engine as EngineType } from '@cairn/core'
import { SqliteStore } from '@cairn/sql/sqlite'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

const WAITING = 10_000
const WARM_UP = 500
/** Generous: 10,000 runs at 1 KB each would already be 10 MB. */
const MAX_GROWTH_BYTES = 8 * 1024 * 1024

void test(
  `${WAITING} runs waiting on signals: the engine's heap does not grow with them`,
  { timeout: 300_000 },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cairn-heap-'))
    const engine = new Engine({
      store: new SqliteStore({ path: join(dir, 'cairn.db'), synchronous: 'normal' }),
      logger: silentLogger,
      concurrency: 50,
    })
    engine.register('waiter', 1, async (ctx) => ctx.waitForSignal<string>('go'))
    try {
      await engine.startDriving()
      await startWaiting(engine, 0, WARM_UP)
      const before = heapAfterGc()
      await startWaiting(engine, WARM_UP, WAITING)
      const after = heapAfterGc()
      assert.equal(engine.activeRuns, 0, 'no waiting run is held in memory')
      assert.ok(
        after - before < MAX_GROWTH_BYTES,
        `heap grew ${Math.round((after - before) / 1024)} KB for ${WAITING - WARM_UP} more waiting runs`,
      )
      // Each resumes on its own, reading only its own history.
      for (const id of [0, 4_321, WAITING - 1]) {
        await engine.signal({ runId: `w-${id}`, name: 'go' }, `hello ${id}`)
        assert.deepEqual(await engine.waitForRun(`w-${id}`, { timeoutMs: 10_000 }), {
          runId: `w-${id}`,
          status: 'completed',
          output: `hello ${id}`,
        })
      }
    } finally {
      await engine.close(0)
      rmSync(dir, { recursive: true, force: true })
    }
  },
)

async function startWaiting(engine: EngineType, from: number, to: number): Promise<void> {
  for (let id = from; id < to; id += 250) {
    const ids = Array.from({ length: Math.min(250, to - id) }, (_, i) => id + i)
    await Promise.all(ids.map((n) => engine.start('waiter', null, { runId: `w-${n}` })))
  }
  // Every run has suspended: nothing executes, nothing is in flight.
  for (let i = 0; i < 600 && engine.activeRuns > 0; i++) await engine.whenQuiet(100)
  await engine.whenQuiet()
  const last = await engine.getRun(`w-${to - 1}`)
  assert.equal(last?.status, 'waiting')
}

function heapAfterGc(): number {
  gc()
  gc()
  return process.memoryUsage().heapUsed
}
