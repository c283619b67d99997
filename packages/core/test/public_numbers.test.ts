/**
 * Every public number of the engine — durations, timeouts, limits, counts — fed the values a
 * careless caller sends: NaN, ±Infinity, -1, 0, 2^31, 2^53, strings, objects. Each call either
 * refuses with E_INVALID_ARGUMENT, promptly, or takes the value with its documented meaning
 * (the `accepts` column); none hangs, spins, crashes the process or silently changes the value.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { JsonCodec } from '../src/codec/json_codec.ts'
import { Engine } from '../src/engine/engine.ts'
import { silentLogger } from '../src/engine/default_logger.ts'
import { MemoryStore } from '../src/store/memory/memory_store.ts'
import { FakeClock } from '../src/testing/fake_clock.ts'
import { createTestEngine } from '../src/testing/test_engine.ts'
import type { WorkflowContext } from '../src/execution/types.ts'
import { MAX_TIME_MS, MAX_TIMER_MS } from '../src/util/numbers.ts'
import {
  assertEveryProbe,
  describeValue,
  int,
  outcomeOf,
  type NumberEntry,
} from './number_probes.ts'

const orForever = (v: unknown) => v === Number.POSITIVE_INFINITY || int(v, 0, MAX_TIME_MS)

function engine(options: Record<string, unknown> = {}): Engine {
  return new Engine({
    store: new MemoryStore(),
    clock: new FakeClock(),
    logger: silentLogger,
    ...options,
  } as never)
}

/** A driving engine with one completed run `done`, and a run `body` of each workflow. */
async function withRuns(): Promise<Engine> {
  const e = engine()
  e.register('done', 1, async (ctx) => {
    await ctx.setEvent('progress', 1)
    return 'ok'
  })
  await e.startDriving()
  await e.start('done', null, { runId: 'done' })
  await e.waitForRun('done', { timeoutMs: 5_000 })
  return e
}

/** Runs `body(ctx, value)` as a workflow; its output, or the code of the error it failed with. */
async function inWorkflow(
  value: unknown,
  body: (ctx: WorkflowContext, value: unknown) => Promise<unknown>,
): Promise<unknown> {
  const e = engine()
  try {
    e.register('probe', 1, async (ctx) => body(ctx, value))
    await e.startDriving()
    const { runId } = await e.start('probe', null)
    const outcome = await e.waitForRun(runId, { timeoutMs: 5_000 })
    if (outcome.status === 'completed') return outcome.output
    throw Object.assign(new Error('run failed'), { code: outcome.error?.code })
  } finally {
    await e.close(0)
  }
}

/** The body took the value: it either settles at once or would wait (a timer or a signal). */
const tookIt = async (ctx: WorkflowContext, pending: Promise<unknown>) => {
  await Promise.race([pending.catch(() => undefined), ctx.sleep(0)])
  return 'taken'
}

const ENGINE_OPTIONS: Array<[string, (v: unknown) => boolean]> = [
  ['concurrency', (v) => int(v, 1, 1_000_000)],
  ['maxBatch', (v) => int(v, 1, 1_000_000)],
  ['leaseMs', (v) => int(v, 1, MAX_TIMER_MS)],
  ['pollIntervalMs', (v) => int(v, 1, MAX_TIMER_MS)],
  ['parkUnrunnableAfterMs', (v) => int(v, 1, MAX_TIME_MS / 2)],
  ['eventRetentionMs', (v) => int(v, 1, MAX_TIME_MS / 2)],
  // Against a lease it must stay below: the longest lease there is.
  ['holdTimersUpToMs', (v) => int(v, 0, MAX_TIMER_MS - 1)],
]

const ENTRIES: NumberEntry[] = [
  ...ENGINE_OPTIONS.map(([option, accepts]) => ({
    name: `new Engine({ ${option} })`,
    accepts,
    call: async (v: unknown) =>
      engine(
        option === 'holdTimersUpToMs' ? { [option]: v, leaseMs: MAX_TIMER_MS } : { [option]: v },
      ),
  })),
  {
    name: 'testEngine.runUntilIdle(maxSteps)',
    accepts: (v) => int(v, 1, 1_000_000),
    call: async (v) => {
      const t = await createTestEngine()
      try {
        await t.runUntilIdle(v as number)
      } finally {
        await t.close()
      }
    },
  },
  {
    name: 'new JsonCodec({ maxBytes })',
    accepts: (v) => int(v, 1, Number.MAX_SAFE_INTEGER),
    call: async (v) => new JsonCodec({ maxBytes: v as number }),
  },
  {
    name: 'new JsonCodec({ maxDepth })',
    accepts: (v) => int(v, 1, 1000),
    call: async (v) => new JsonCodec({ maxDepth: v as number }),
  },
  {
    name: 'engine.waitForRun({ timeoutMs })',
    accepts: orForever,
    call: async (v) => {
      const e = await withRuns()
      try {
        return await e.waitForRun('done', { timeoutMs: v as number })
      } finally {
        await e.close(0)
      }
    },
  },
  {
    name: 'engine.drain(timeoutMs)',
    accepts: orForever,
    call: async (v) => engine().drain(v as number),
  },
  {
    name: 'engine.close(drainTimeoutMs)',
    accepts: orForever,
    call: async (v) => engine().close(v as number),
  },
  {
    name: 'engine.getEvent({ timeoutMs })',
    accepts: (v) => int(v, 0, MAX_TIME_MS),
    call: async (v) => {
      const e = await withRuns()
      try {
        // A value the run published: a taken timeout returns it at the first read.
        return await e.getEvent('done', 'progress', { timeoutMs: v as number })
      } finally {
        await e.close(0)
      }
    },
  },
  {
    name: 'engine.register({ executionTimeoutMs })',
    accepts: (v) => int(v, 1, MAX_TIME_MS / 2),
    call: async (v) =>
      engine().register('w', 1, async () => null, { executionTimeoutMs: v as number }),
  },
  {
    name: 'engine.register(name, version)',
    // A version is a string (any identifier) or a finite number >= 0.
    accepts: (v) =>
      typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v) && v >= 0),
    call: async (v) => engine().register('w', v as number, async () => null),
  },
  {
    name: 'engine.registerStep({ timeoutMs })',
    accepts: (v) => int(v, 1, MAX_TIME_MS),
    call: async (v) => engine().registerStep('s', () => 1, { timeoutMs: v as number }),
  },
  {
    name: 'engine.listRuns({ limit })',
    accepts: (v) => int(v, 1, 1000),
    call: async (v) => engine().listRuns({ limit: v as number }),
  },
  {
    name: 'ctx.sleep(duration)',
    // Milliseconds, or duration text ('5s'); the due time must be one a Date can hold.
    accepts: (v) =>
      v === '5s' || (typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= 2 ** 31),
    call: (v) => inWorkflow(v, (ctx, value) => tookIt(ctx, ctx.sleep(value as number))),
  },
  {
    name: 'ctx.waitForSignal({ timeoutMs })',
    accepts: (v) => int(v, 0, 2 ** 31),
    call: (v) =>
      inWorkflow(v, (ctx, value) =>
        tookIt(ctx, ctx.waitForSignal('x', { timeoutMs: value as number })),
      ),
  },
  {
    name: 'ctx.waitForEvent({ timeoutMs })',
    accepts: (v) => int(v, 0, 2 ** 31),
    call: (v) =>
      inWorkflow(v, (ctx, value) =>
        tookIt(ctx, ctx.waitForEvent('x', { timeoutMs: value as number })),
      ),
  },
  {
    name: 'ctx.localStep({ timeoutMs })',
    accepts: (v) => int(v, 1, MAX_TIME_MS),
    call: (v) =>
      inWorkflow(v, (ctx, value) =>
        ctx.localStep('s', () => 'ran', { timeoutMs: value as number }),
      ),
  },
  {
    name: 'ctx.localStep({ retries })',
    accepts: (v) => int(v, 0, Number.MAX_SAFE_INTEGER),
    call: (v) =>
      inWorkflow(v, (ctx, value) => ctx.localStep('s', () => 'ran', { retries: value as number })),
  },
  {
    name: 'ctx.localStep({ backoff: { delay } })',
    // Milliseconds or duration text with its unit ('5s'); '100' is refused, never guessed.
    accepts: (v) => v === '5s' || (typeof v === 'number' && v >= 0 && v <= MAX_TIME_MS),
    call: (v) =>
      inWorkflow(v, (ctx, value) =>
        ctx.localStep('s', () => 'ran', { backoff: { delay: value as number } }),
      ),
  },
  {
    name: 'ctx.localStep({ backoff: { factor } })',
    accepts: (v) => typeof v === 'number' && v >= 1 && v <= 1_000,
    call: (v) =>
      inWorkflow(v, (ctx, value) =>
        ctx.localStep('s', () => 'ran', { backoff: { factor: value as number } }),
      ),
  },
  {
    name: 'ctx.localStep({ backoff: { jitter } })',
    accepts: (v) => typeof v === 'number' && v >= 0 && v <= 1,
    call: (v) =>
      inWorkflow(v, (ctx, value) =>
        ctx.localStep('s', () => 'ran', { backoff: { jitter: value as number } }),
      ),
  },
]

for (const entry of ENTRIES) {
  void test(`${entry.name}: bad numbers are refused, valid ones taken`, () =>
    assertEveryProbe(entry))
}

void test('any double through the timeouts: refused or taken, never anything else', async () => {
  const timeouts = ENTRIES.filter((e) => /timeoutMs|drain|close/.test(e.name))
  await fc.assert(
    fc.asyncProperty(fc.double(), fc.constantFrom(...timeouts), async (value, entry) => {
      const got = await outcomeOf(entry, value)
      assert.equal(got, entry.accepts(value) ? 'taken' : 'E_INVALID_ARGUMENT', describeValue(value))
    }),
    { numRuns: 60 },
  )
})

void test('a step timeout above 2^31 − 1 ms holds (setTimeout alone would fire after 1 ms)', async () => {
  const e = new Engine({ store: new MemoryStore(), logger: silentLogger })
  try {
    e.register('slow', 1, async (ctx) =>
      ctx.localStep('s', () => new Promise((resolve) => setTimeout(() => resolve('done'), 30)), {
        timeoutMs: 2 ** 31 + 5,
        retries: 0,
      }),
    )
    await e.startDriving()
    const { runId } = await e.start('slow', null)
    assert.deepEqual(await e.waitForRun(runId, { timeoutMs: 10_000 }), {
      runId,
      status: 'completed',
      output: 'done',
    })
  } finally {
    await e.close(0)
  }
})
