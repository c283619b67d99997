/**
 * Which worker ran a remote step (issue 14, operations): the recorded attempt keeps its
 * worker's id and times, and StepInfo shows them with the time the task waited for a worker
 * (a failed attempt's row keeps its worker too: the store conformance suite). A local step has
 * none. And a failed attempt's result that came through the inbox is consumed with its retry.
 * Every store.
 */
import assert from 'node:assert/strict'
import { systemClock } from '@cairn/core'
import { createMemoryTransport } from '@cairn/core/testing'
import { createWorker } from '@cairn/worker'
import { eachStore } from '../helpers/harness.ts'

eachStore('remote step workers', (test) => {
  test('a step records the worker that ran it; StepInfo shows it and how long its task waited', async (env) => {
    const transport = createMemoryTransport()
    // The system clock on both sides: queuedMs compares the engine's dispatch time with the
    // worker's start, which a fake engine clock would make meaningless.
    const engine = await env.engine({
      transports: { memory: transport.engine() },
      clock: systemClock,
    })
    engine.registerStep('render', () => 'never here', { transport: 'memory' })
    engine.register('draw', 1, async (ctx) => {
      await ctx.localStep('prepare', () => 'ready')
      return ctx.step('render', null)
    })
    const began = Date.now()
    const { runId } = await engine.start('draw', null)
    await new Promise((resolve) => setTimeout(resolve, 300)) // no worker yet: the task waits
    const worker = createWorker({
      transport: transport.worker(),
      workerId: 'w-render',
      steps: { render: () => 'drawn' },
    })
    await worker.start()
    try {
      const outcome = await engine.waitForRun(runId, { timeoutMs: 10_000 })
      const elapsed = Date.now() - began
      assert.deepEqual(outcome, { runId, status: 'completed', output: 'drawn' })
      const [local, remote] = await engine.getSteps(runId)
      assert.equal(local?.worker, null, 'a local step has no worker')
      assert.equal(remote?.worker?.id, 'w-render')
      const { startedAt, finishedAt, queuedMs } = remote?.worker ?? {}
      assert.ok(startedAt instanceof Date && finishedAt instanceof Date)
      assert.ok(finishedAt.getTime() >= startedAt.getTime())
      assert.ok(
        queuedMs !== undefined && queuedMs >= 250 && queuedMs <= elapsed,
        `queuedMs ${queuedMs}: the task waited about 300 ms of ${elapsed}`,
      )
    } finally {
      await worker.close(100)
    }
  })
})

eachStore('remote step results through the inbox', (test) => {
  test('a failed attempt’s result is consumed with its retry: the run leaves no message behind', async (env) => {
    const transport = createMemoryTransport()
    const worker = createWorker({
      transport: transport.worker(),
      steps: {
        render: async (_input: null, step) => {
          // Slower than the test's first clock move, which ends the turn's hold (0 ms on the
          // fake clock): each result comes through the run's inbox, not to a live turn.
          await new Promise((resolve) => setTimeout(resolve, 100))
          if (step.attempt < 3) throw new Error(`blip ${step.attempt}`)
          return 'drawn'
        },
      },
    })
    await worker.start()
    try {
      const engine = await env.engine({
        transports: { memory: transport.engine() },
        holdTimersUpToMs: 0,
      })
      engine.registerStep('render', () => 'never here', {
        transport: 'memory',
        retries: 2,
        backoff: { delay: '10ms', jitter: 0 },
      })
      engine.register('draw', 1, async (ctx) => ctx.step('render', null))
      const { runId } = await engine.start('draw', null)
      for (let i = 0; i < 200 && (await engine.getRun(runId))?.status !== 'completed'; i++) {
        await env.skip(50)
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
      const outcome = await engine.waitForRun(runId, { timeoutMs: 10_000 })
      assert.deepEqual(outcome, { runId, status: 'completed', output: 'drawn' })
      assert.equal((await engine.getSteps(runId))[0]?.attempts, 3)
      assert.deepEqual(await env.handle.store.loadInbox(runId), [], 'results left unconsumed')
    } finally {
      await worker.close(100)
    }
  })
})
