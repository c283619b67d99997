/**
 * The test harness for workflow authors: an engine on the memory store with a fake clock,
 * already driving runs. `skipTime` moves through sleeps and back-offs instantly.
 *
 *   const t = await createTestEngine()
 *   t.engine.register('remind', 1, async (ctx) => { await ctx.sleep('2h'); return 'sent' })
 *   const { runId } = await t.engine.start('remind', null)
 *   await t.skipTime('2h')
 *   assert.deepEqual(await t.engine.waitForRun(runId), { runId, status: 'completed', output: 'sent' })
 */
import type { StateStore } from '../contracts/state_store.ts'
import { Engine } from '../engine/engine.ts'
import { silentLogger } from '../engine/default_logger.ts'
import type { EngineOptions } from '../engine/options.ts'
import { MemoryStore } from '../store/index.ts'
import { toMilliseconds, type Duration } from '../util/duration.ts'
import { checkInteger, NUMBER_RANGES } from '../util/numbers.ts'
import { FakeClock, settle } from './fake_clock.ts'

export interface TestEngine {
  engine: Engine
  clock: FakeClock
  store: StateStore
  /** Advance the fake clock, firing timers on the way. */
  skipTime(duration: Duration): Promise<void>
  /**
   * Advance time until no run executes and none waits on a timer (up to `maxSteps` jumps):
   * every sleep and back-off of every run passes.
   */
  runUntilIdle(maxSteps?: number): Promise<void>
  close(): Promise<void>
}

async function runUntilIdle(engine: Engine, clock: FakeClock, maxSteps: number): Promise<void> {
  for (let i = 0; i < maxSteps; i++) {
    await settle()
    const next = engine.activeRuns > 0 ? clock.nextDue() : await earliestWake(engine)
    if (next === null) return
    await clock.advanceTo(Math.max(next, clock.now()))
  }
}

async function earliestWake(engine: Engine): Promise<number | null> {
  let earliest: number | null = null
  let cursor: string | undefined
  do {
    const page = await engine.listRuns({ status: ['waiting', 'blocked'], limit: 1000, cursor })
    for (const run of page.runs) {
      const at = run.wakeAt?.getTime()
      if (at !== undefined && (earliest === null || at < earliest)) earliest = at
    }
    cursor = page.nextCursor ?? undefined
  } while (cursor !== undefined)
  return earliest
}

export async function createTestEngine(options: Partial<EngineOptions> = {}): Promise<TestEngine> {
  const clock = options.clock instanceof FakeClock ? options.clock : new FakeClock()
  const store = options.store ?? new MemoryStore()
  const engine = new Engine({
    logger: silentLogger,
    ...options,
    store,
    clock,
    instanceId: options.instanceId ?? 'test',
  })
  const harness: TestEngine = {
    engine,
    clock,
    store,
    skipTime: (duration) => clock.advance(toMilliseconds(duration, 'skipTime')),
    // A NaN would end the loop at once, as if idle; Infinity could never give up.
    runUntilIdle: async (maxSteps = 10_000) =>
      runUntilIdle(
        engine,
        clock,
        checkInteger(maxSteps, 'runUntilIdle maxSteps', NUMBER_RANGES.count),
      ),
    close: async () => void (await engine.close(1_000)),
  }
  clock.settler = async () => {
    await settle()
    await engine.whenQuiet()
  }
  await engine.startDriving()
  await clock.settler()
  return harness
}
