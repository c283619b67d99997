import assert from 'node:assert/strict'
import { eachStore } from '../helpers/harness.ts'

eachStore('bad inputs', (test) => {
  test('unserializable inputs are rejected at start with the path, and nothing is created', async (env) => {
    const engine = await env.engine()
    engine.register('w', 1, async () => null)
    await assert.rejects(
      engine.start('w', { a: [1, { fn: () => 1 }] }),
      (err: { code: string; path: string }) => {
        assert.equal(err.code, 'E_NOT_SERIALIZABLE')
        assert.equal(err.path, '$.a[1].fn')
        return true
      },
    )
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    await assert.rejects(engine.start('w', cyclic), { code: 'E_NOT_SERIALIZABLE' })
    await assert.rejects(engine.start('w', Symbol('x')), { code: 'E_NOT_SERIALIZABLE' })
    assert.equal((await engine.listRuns()).runs.length, 0)
  })

  test('oversized payloads are rejected with E_PAYLOAD_TOO_LARGE', async (env) => {
    const engine = await env.engine()
    engine.register('w', 1, async () => null)
    await assert.rejects(engine.start('w', 'x'.repeat(5 * 1024 * 1024)), {
      code: 'E_PAYLOAD_TOO_LARGE',
    })
    assert.equal((await engine.listRuns()).runs.length, 0)
  })

  test('bad run ids and workflow names are rejected, never truncated', async (env) => {
    const engine = await env.engine()
    engine.register('w', 1, async () => null)
    for (const runId of ['', ' padded', 'a\u0000b', 'x'.repeat(256), 'lone\ud800']) {
      await assert.rejects(
        engine.start('w', null, { runId }),
        { code: 'E_INVALID_ARGUMENT' },
        JSON.stringify(runId),
      )
    }
    assert.throws(() => engine.register('bad\nname', 1, async () => null), {
      code: 'E_INVALID_ARGUMENT',
    })
    const emoji = await engine.start('w', null, { runId: 'order-🚀-ü' })
    assert.equal((await engine.getRun(emoji.runId))?.id, 'order-🚀-ü')
  })

  test('NUL bytes, lone surrogates, huge integers and special values round-trip through a run', async (env) => {
    const engine = await env.engine()
    engine.register('echo', 1, async (ctx, input: unknown) => ctx.localStep('echo', () => input))
    const input = {
      nul: 'a\u0000b',
      lone: 'x\ud800y',
      emoji: '🚀',
      big: 2n ** 64n + 1n,
      unsafe: Number.MAX_SAFE_INTEGER,
      when: new Date(1_700_000_000_123),
      map: new Map([[1, 'one']]),
      set: new Set(['s']),
      undef: undefined,
      negZero: -0,
      nan: Number.NaN,
    }
    const { runId } = await engine.start('echo', input)
    const outcome = await engine.waitForRun(runId, { timeoutMs: 5_000 })
    assert.equal(outcome.status, 'completed')
    if (outcome.status === 'completed') assert.deepStrictEqual(outcome.output, input)
  })

  test('a step name a store could not keep as written (lone surrogate, NUL) is refused at the call, not parked later as non-determinism', async (env) => {
    const engine = await env.engine()
    const names = ['half \ud800 surrogate', 'nul\u0000byte', '', 'x'.repeat(1001)]
    engine.register('names', 1, async (ctx) => {
      const codes: string[] = []
      for (const name of names) {
        try {
          await ctx.localStep(name, () => 1)
          codes.push('taken')
        } catch (error) {
          codes.push((error as { code?: string }).code ?? 'raw')
        }
      }
      // A name with astral characters, spaces and punctuation is fine, and replays.
      await ctx.localStep('charge 💳 card (eu)', () => 2)
      await ctx.sleep('1h')
      return codes
    })
    const { runId } = await engine.start('names', null)
    await env.settle()
    await env.skip(3_600_000) // replayed after the sleep: the recorded names match the code's
    assert.deepEqual(await engine.waitForRun(runId, { timeoutMs: 5_000 }), {
      runId,
      status: 'completed',
      output: names.map(() => 'E_INVALID_ARGUMENT'),
    })
  })

  test('a step returning something unserializable fails that step at once (not retried)', async (env) => {
    const engine = await env.engine()
    let attempts = 0
    engine.register('fnres', 1, async (ctx) =>
      ctx.localStep('returns-fn', () => (attempts++, { callback: () => 1 })),
    )
    const { runId } = await engine.start('fnres', null)
    const outcome = await engine.waitForRun(runId, { timeoutMs: 5_000 })
    assert.equal(outcome.status, 'failed')
    if (outcome.status === 'failed') assert.equal(outcome.error.code, 'E_NOT_SERIALIZABLE')
    assert.equal(attempts, 1)
  })

  test('a body awaiting something that is not a Cairn primitive is parked, not left hanging', async (env) => {
    const engine = await env.engine()
    engine.register('stray', 1, async (ctx) => {
      await ctx.localStep('ok', () => 1)
      await new Promise(() => {}) // e.g. a forgotten plain promise
    })
    const { runId } = await engine.start('stray', null)
    await env.settle()
    await env.settle()
    const run = await engine.getRun(runId)
    assert.equal(run?.status, 'parked')
    assert.equal(run?.parkReason?.code, 'E_WAITING_ON_NOTHING')
  })

  test('invalid engine options fail fast naming the option', async (env) => {
    await assert.rejects(env.engine({ concurrency: 0 }), /concurrency must be a positive integer/)
    await assert.rejects(
      env.engine({ holdTimersUpToMs: 60_000, leaseMs: 30_000 }),
      /holdTimersUpToMs/,
    )
  })
})
