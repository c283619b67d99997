/**
 * Debounced and batched event-triggered starts (issue 15 point 4): an `onEvent` trigger with a
 * `batch` gathers its events in a store accumulator and starts one run per window — a debounce
 * with the last payload once the events stop, a batch with up to `maxSize` payloads — exactly
 * once per accumulator whichever engine fires it, across a restart and a dead claimer. Runs
 * and their inputs are read from the store, never from the publish's own report.
 */
import assert from 'node:assert/strict'
import { silentLogger, type Engine, type RunInfo } from '@cairn/core'
import { eachStore, type Env } from '../helpers/harness.ts'

async function runsOf(engine: Engine, workflow: string): Promise<RunInfo[]> {
  const { runs } = await engine.listRuns({ workflow, limit: 100 })
  return runs.sort(
    (a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1),
  )
}

/** The runs' inputs, in the order of their first payload (runs made at one instant tie). */
async function inputsOf(engine: Engine, workflow: string): Promise<unknown[]> {
  const inputs = (await runsOf(engine, workflow)).map((run) => run.input)
  return inputs.sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1))
}

function registerReindex(engine: Engine, extra: object = {}): void {
  engine.register('reindex', 1, async (_ctx, product: unknown) => product, {
    onEvent: [{ name: 'product.changed', batch: { mode: 'debounce', windowMs: 1_000 }, ...extra }],
  })
}

async function publish(env: Env, engine: Engine, payload: unknown, eventId?: string) {
  const published = await engine.publishEvent(
    'product.changed',
    payload,
    eventId === undefined ? {} : { eventId },
  )
  await env.settle()
  return published
}

eachStore('debounced and batched starts', (test) => {
  test('a debounce starts one run after the events stop, with the last payload', async (env) => {
    const engine = await env.engine()
    registerReindex(engine)
    const first = await publish(env, engine, { sku: 'a', v: 1 }, 'e1')
    assert.deepEqual(first.started, [], 'no run per event')
    assert.equal(first.batched.length, 1)
    const batchId = first.batched[0]?.id as string
    assert.deepEqual(first.batched, [
      { workflow: 'reindex', key: '', id: batchId, size: 1, dueAt: env.clock.now() + 1_000 },
    ])
    await env.skip(600)
    await publish(env, engine, { sku: 'a', v: 2 }, 'e2')
    await env.skip(600)
    await publish(env, engine, { sku: 'a', v: 3 }, 'e3')
    await env.skip(900)
    assert.deepEqual(await runsOf(engine, 'reindex'), [], 'the burst goes on: nothing yet')
    await env.skip(200)
    const runs = await runsOf(engine, 'reindex')
    assert.deepEqual(
      runs.map((run) => [run.id, run.input]),
      [[`evb:reindex:${batchId}`, { sku: 'a', v: 3 }]],
      'one run, the last payload',
    )
    assert.equal((await engine.waitForRun(runs[0]?.id as string)).status, 'completed')
    await env.skip(5_000)
    assert.equal((await runsOf(engine, 'reindex')).length, 1, 'and only one')
  })

  test('a batch starts a run per maxSize payloads at once, and the rest at the window end', async (env) => {
    const engine = await env.engine()
    engine.register('digest', 1, async (_ctx, events: unknown[]) => events.length, {
      onEvent: [
        { name: 'product.changed', batch: { mode: 'batch', maxSize: 3, windowMs: 10_000 } },
      ],
    })
    for (let i = 1; i <= 7; i++) await publish(env, engine, i, `e${i}`)
    assert.deepEqual(
      await inputsOf(engine, 'digest'),
      [
        [1, 2, 3],
        [4, 5, 6],
      ],
      'two full batches',
    )
    await env.skip(9_000)
    assert.equal((await runsOf(engine, 'digest')).length, 2, 'the seventh waits for its window')
    await env.skip(1_100)
    assert.deepEqual(await inputsOf(engine, 'digest'), [[1, 2, 3], [4, 5, 6], [7]])
  })

  test('keys keep windows apart; the workflow-wide eventBatch applies to every trigger', async (env) => {
    const engine = await env.engine()
    engine.register('reindex', 1, async (_ctx, product: unknown) => product, {
      onEvent: ['product.changed', 'product.created'],
      eventBatch: {
        mode: 'debounce',
        windowMs: 1_000,
        key: (payload) => (payload as { sku: string }).sku,
      },
    })
    await engine.publishEvent('product.changed', { sku: 'a', v: 1 })
    await engine.publishEvent('product.created', { sku: 'b', v: 1 })
    await engine.publishEvent('product.changed', { sku: 'a', v: 2 })
    await env.skip(1_100)
    const inputs = (await inputsOf(engine, 'reindex')).map((i) => JSON.stringify(i)).sort()
    assert.deepEqual(inputs, ['{"sku":"a","v":2}', '{"sku":"b","v":1}'], 'one run per key')
  })

  test('a retried publish joins nothing twice', async (env) => {
    const engine = await env.engine()
    engine.register('digest', 1, async (_ctx, events: unknown[]) => events, {
      onEvent: [
        { name: 'product.changed', batch: { mode: 'batch', maxSize: 10, windowMs: 1_000 } },
      ],
    })
    await publish(env, engine, 'one', 'e1')
    const retried = await publish(env, engine, 'one again', 'e1')
    assert.deepEqual(retried.batched, [], 'the retry joined nothing')
    await publish(env, engine, 'two', 'e2')
    await env.skip(1_100)
    assert.deepEqual(await inputsOf(engine, 'digest'), [['one', 'two']])
  })

  test('an accumulator outlives its engine: a restarted engine fires it', async (env) => {
    const first = await env.engine()
    registerReindex(first)
    await publish(env, first, { sku: 'a' }, 'e1')
    await first.close()
    await env.skip(5_000) // due while no engine runs
    const second = await env.engine()
    registerReindex(second)
    await env.skip(10)
    assert.deepEqual(await inputsOf(second, 'reindex'), [{ sku: 'a' }], 'fired once by the restart')
  })

  test('a claimer that died before starting the run is taken over when its lease lapses', async (env) => {
    const engine = await env.engine({ leaseMs: 10_000 })
    registerReindex(engine)
    await engine.close()
    const survivor = await env.engine({ leaseMs: 10_000, drive: false })
    registerReindex(survivor)
    await publish(env, survivor, { sku: 'a' }, 'e1')
    await env.skip(1_000)
    // A process claims it, then dies before starting its run.
    const dead = await survivor.store.claimEventBatches({
      now: env.clock.now(),
      limit: 10,
      owner: 'dead-engine',
      leaseMs: 10_000,
      workflows: ['reindex'],
    })
    assert.equal(dead.claimed.length, 1)
    await survivor.startDriving()
    await env.skip(5_000)
    assert.deepEqual(await runsOf(survivor, 'reindex'), [], 'the dead claim holds it')
    await env.skip(6_000)
    assert.deepEqual(await inputsOf(survivor, 'reindex'), [{ sku: 'a' }], 'taken over, once')
  })

  test(
    'a batch too large for one run is split, losing no event',
    async (env) => {
      const engine = await env.engine()
      const sizes: number[] = []
      engine.register(
        'digest',
        1,
        async (_ctx, events: string[]) => (sizes.push(events.length), null),
        {
          onEvent: [{ name: 'blob', batch: { mode: 'batch', maxSize: 10, windowMs: 1_000 } }],
        },
      )
      // Ten payloads of 600 KB: one input of 6 MB is over the codec's 4 MB.
      for (let i = 0; i < 10; i++) await engine.publishEvent('blob', `${i}`.padEnd(600_000, 'x'))
      await env.skip(10)
      const runs = await runsOf(engine, 'digest')
      for (const run of runs) await engine.waitForRun(run.id, { timeoutMs: 10_000 })
      assert.deepEqual(sizes.sort(), [5, 5], 'two runs of five: every event in one of them')
    },
    (store) => store === 'memory' || store === 'sqlite',
  )

  test('a run whose queue this engine lacks is retried, not dropped', async (env) => {
    const engine = await env.engine({ leaseMs: 10_000 })
    engine.register('reindex', 1, async (_ctx, product: unknown) => product, {
      onEvent: [{ name: 'product.changed', batch: { mode: 'debounce', windowMs: 1_000 } }],
      queue: 'indexer',
    })
    await publish(env, engine, { sku: 'a' })
    await env.skip(1_100)
    assert.deepEqual(await runsOf(engine, 'reindex'), [], 'not started: no queue "indexer" here')
    engine.registerQueue('indexer', { concurrency: 1 })
    await env.skip(10_000) // its claim's lease lapses: claimed again, started now
    assert.deepEqual(await inputsOf(engine, 'reindex'), [{ sku: 'a' }])
  })

  test('a batch refused for good is logged at error with its events, and dropped', async (env) => {
    const errors: Array<{ obj: Record<string, unknown>; msg: string }> = []
    const logger = {
      ...silentLogger,
      error: (obj: Record<string, unknown>, msg: string) => void errors.push({ obj, msg }),
    }
    const engine = await env.engine({ logger, leaseMs: 10_000 })
    engine.register(
      'sync',
      1,
      async (ctx) => {
        await ctx.waitForSignal('go')
        return 'synced'
      },
      {
        singleton: { key: () => 'all', limit: 1, onFull: 'reject' },
        onEvent: [{ name: 'product.changed', batch: { mode: 'debounce', windowMs: 1_000 } }],
      },
    )
    const holder = await engine.start('sync', { sku: 'held' })
    await publish(env, engine, { sku: 'a' }, 'e1')
    await publish(env, engine, { sku: 'b' }, 'e2')
    await env.skip(1_100)
    assert.deepEqual(
      errors.map(({ obj, msg }) => [
        msg,
        obj.workflow,
        obj.eventIds,
        (obj.err as { code?: string }).code,
      ]),
      [
        [
          'cairn: an event batch could not start its run; its events are dropped',
          'sync',
          ['e2'], // a debounce carries its last event; e1 was superseded, not dropped
          'E_SINGLETON_FULL',
        ],
      ],
    )
    await engine.signal({ runId: holder.runId, name: 'go' }, null)
    assert.equal((await engine.waitForRun(holder.runId)).status, 'completed')
    await env.skip(20_000) // a kept accumulator would be claimed again after its lease
    assert.deepEqual(
      (await runsOf(engine, 'sync')).map((run) => run.id),
      [holder.runId],
      'the dropped batch never starts',
    )
    assert.equal(errors.length, 1, 'dropped once')
  })

  test(
    'an engine with more workflows than one claim names fires them all',
    async (env) => {
      const engine = await env.engine()
      for (let i = 0; i < 1_200; i++) engine.register(`w${i}`, 1, async () => null)
      engine.register('last', 1, async (_ctx, product: unknown) => product, {
        onEvent: [{ name: 'product.changed', batch: { mode: 'debounce', windowMs: 1_000 } }],
      })
      await publish(env, engine, { sku: 'a' })
      await env.skip(1_100)
      assert.deepEqual(await inputsOf(engine, 'last'), [{ sku: 'a' }])
    },
    (store) => store === 'memory',
  )

  test('bad batch options fail registration; a throwing key refuses that trigger only', async (env) => {
    const engine = await env.engine()
    const body = async () => null
    const bad: Array<[string, object]> = [
      ['windowMs 0', { onEvent: [{ name: 'e', batch: { mode: 'debounce', windowMs: 0 } }] }],
      ['windowMs NaN', { onEvent: [{ name: 'e', batch: { mode: 'debounce', windowMs: NaN } }] }],
      [
        'maxSize 0',
        { onEvent: [{ name: 'e', batch: { mode: 'batch', maxSize: 0, windowMs: 5 } }] },
      ],
      [
        'maxSize 1001',
        { onEvent: [{ name: 'e', batch: { mode: 'batch', maxSize: 1001, windowMs: 5 } }] },
      ],
      ['a mode', { onEvent: [{ name: 'e', batch: { mode: 'window', windowMs: 5 } }] }],
      [
        'maxWaitMs on a batch',
        {
          onEvent: [{ name: 'e', batch: { mode: 'batch', maxSize: 2, windowMs: 5, maxWaitMs: 9 } }],
        },
      ],
      [
        'a key that is no function',
        { onEvent: [{ name: 'e', batch: { mode: 'debounce', windowMs: 5, key: 'sku' } }] },
      ],
      [
        'runId with a batch',
        { onEvent: [{ name: 'e', runId: () => 'x', batch: { mode: 'debounce', windowMs: 5 } }] },
      ],
      ['eventBatch without onEvent', { eventBatch: { mode: 'debounce', windowMs: 5 } }],
    ]
    for (const [what, options] of bad)
      assert.throws(
        () => engine.register(`w${what.length}`, 1, body, options as never),
        { code: 'E_INVALID_ARGUMENT' },
        what,
      )
    engine.register('keyed', 1, body, {
      onEvent: [
        {
          name: 'e',
          batch: {
            mode: 'debounce',
            windowMs: 5,
            key: (p) => (p as { k: string }).k.toUpperCase(),
          },
        },
      ],
    })
    engine.register('long', 1, body, {
      onEvent: [
        { name: 'e', batch: { mode: 'debounce', windowMs: 5, key: () => 'k'.repeat(201) } },
      ],
    })
    engine.register('plain', 1, body, { onEvent: ['e'] })
    const published = await engine.publishEvent('e', { other: 1 }, { eventId: 'x1' })
    assert.deepEqual(published.started.map((s) => [s.workflow, s.status, s.error?.code]).sort(), [
      ['keyed', 'refused', 'E_INVALID_ARGUMENT'],
      ['long', 'refused', 'E_INVALID_ARGUMENT'],
      ['plain', 'started', undefined],
    ])
    assert.deepEqual(published.batched, [], 'nothing joined an accumulator')
  })
})
