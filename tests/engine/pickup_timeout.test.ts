/**
 * `pickupTimeoutMs` (issue 14): an attempt whose task no worker picked up in time is taken back
 * from the transport — no worker ever starts it — and fails E_PICKUP_TIMEOUT, retried by the
 * step's policy; a task a worker picked up in time goes on however long it runs. The wait
 * shows its pickup deadline. On every store, with the memory transport and a fake clock.
 */
import assert from 'node:assert/strict'
import { ErrorCodes, type Engine } from '@cairn/core'
import { createMemoryTransport } from '@cairn/core/testing'
import { createWorker } from '@cairn/worker'
import { eachStore } from '../helpers/harness.ts'

function registerShip(engine: Engine, retries: number): void {
  engine.registerStep('ship', () => 'never here', {
    transport: 'memory',
    // Past the engine's in-memory hold (5 s), so a waiting run suspends and shows its deadline.
    pickupTimeoutMs: 20_000,
    retries,
    backoff: { delay: '1s', jitter: 0 },
  })
  engine.register('order', 1, async (ctx) => ctx.step('ship', null))
}

eachStore('pickup timeouts', (test) => {
  test('no worker picks the task up: each attempt is withdrawn and fails E_PICKUP_TIMEOUT; a late worker runs nothing', async (env) => {
    const transport = createMemoryTransport()
    const engine = await env.engine({ transports: { memory: transport.engine() } })
    registerShip(engine, 1)
    const retried: string[] = []
    engine.on('step:retried', (e) => retried.push((e.error as { code?: string }).code ?? '?'))
    const { runId } = await engine.start('order', null)
    await env.settle()
    await env.skip(6_000) // past the in-memory hold: suspended
    const waiting = await engine.getRun(runId)
    assert.match(
      waiting?.waitingOn ?? '',
      /step "ship" on memory \(attempt 1\) to be picked up by /,
    )
    await env.skip(15_000) // past the first window: attempt 1 withdrawn, retried after 1 s
    await env.skip(22_000) // attempt 2 dispatched and past its window too
    const outcome = await engine.waitForRun(runId, { timeoutMs: 10_000 })
    assert.equal(outcome.status, 'failed')
    assert.equal(
      outcome.status === 'failed' && (outcome.error as { code?: string }).code,
      ErrorCodes.PICKUP_TIMEOUT,
    )
    assert.deepEqual(retried, [ErrorCodes.PICKUP_TIMEOUT])
    const [step] = await engine.getSteps(runId)
    assert.deepEqual([step?.status, step?.attempts], ['failed', 2])
    assert.equal(transport.broker.pendingTasks(), 0, 'a withdrawn task is still on the transport')
    let ran = 0
    const late = createWorker({ transport: transport.worker(), steps: { ship: () => ran++ } })
    await late.start()
    await new Promise((resolve) => setTimeout(resolve, 200))
    await late.close(100)
    assert.equal(ran, 0, 'a worker started a task past its pickup window')
  })

  test('a task picked up in time goes on past the window, and completes', async (env) => {
    const transport = createMemoryTransport()
    const release = Promise.withResolvers<void>()
    let started = false
    const worker = createWorker({
      transport: transport.worker(),
      steps: {
        ship: async () => {
          started = true
          await release.promise
          return 'shipped'
        },
      },
    })
    await worker.start()
    try {
      const engine = await env.engine({ transports: { memory: transport.engine() } })
      registerShip(engine, 0)
      const { runId } = await engine.start('order', null)
      await waitFor(() => started)
      await env.skip(30_000) // far past the pickup window: the worker holds it
      const running = await engine.getRun(runId)
      assert.notEqual(running?.status, 'failed')
      assert.doesNotMatch(running?.waitingOn ?? '', /to be picked up/)
      release.resolve()
      const outcome = await engine.waitForRun(runId, { timeoutMs: 10_000 })
      assert.deepEqual(outcome, { runId, status: 'completed', output: 'shipped' })
    } finally {
      release.resolve()
      await worker.close(100)
    }
  })

  test('pickupTimeoutMs is refused without a transport, and when it is not a duration', async (env) => {
    const engine = await env.engine({ transports: { memory: createMemoryTransport().engine() } })
    assert.throws(() => engine.registerStep('a', () => 1, { pickupTimeoutMs: 1_000 }), {
      code: 'E_INVALID_ARGUMENT',
      message: /pickupTimeoutMs needs a transport/,
    })
    for (const bad of [0, -1, 1.5, Number.NaN, Infinity, '1000', 1e300])
      assert.throws(
        () =>
          engine.registerStep(`b${String(bad)}`, () => 1, {
            transport: 'memory',
            pickupTimeoutMs: bad as number,
          }),
        { code: 'E_INVALID_ARGUMENT', message: /pickupTimeoutMs/ },
        String(bad),
      )
    engine.registerStep('c', () => 1)
    engine.register('per-call', 1, async (ctx) => ctx.step('c', null, { pickupTimeoutMs: 5 }))
    const { runId } = await engine.start('per-call', null)
    const outcome = await engine.waitForRun(runId, { timeoutMs: 10_000 })
    assert.equal(outcome.status, 'failed')
    assert.match(
      outcome.status === 'failed' ? String(outcome.error.message) : '',
      /pickupTimeoutMs needs a transport/,
    )
  })
})

async function waitFor(done: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 10))
  assert.ok(done(), 'timed out waiting')
}
