/**
 * Which worker ran a remote step (issue 14, operations): the recorded attempt keeps its
 * worker's id and times — on a completed step, and on the failed attempt a retry follows —
 * and StepInfo shows it with the time the task waited. A local step has none. Every store.
 */
import assert from 'node:assert/strict'
import { createMemoryTransport } from '@cairn/core/testing'
import { createWorker } from '@cairn/worker'
import { eachStore } from '../helpers/harness.ts'

eachStore('remote step workers', (test) => {
  test('a step records the worker that ran it; StepInfo shows it and its queue time', async (env) => {
    const transport = createMemoryTransport()
    const worker = createWorker({
      transport: transport.worker(),
      workerId: 'w-render',
      steps: {
        render: (_input: null, step) => {
          if (step.attempt === 1) throw new Error('first try fails')
          return 'drawn'
        },
      },
    })
    await worker.start()
    try {
      const engine = await env.engine({ transports: { memory: transport.engine() } })
      engine.registerStep('render', () => 'never here', {
        transport: 'memory',
        retries: 1,
        backoff: { delay: '10ms', jitter: 0 },
      })
      engine.register('draw', 1, async (ctx) => {
        await ctx.localStep('prepare', () => 'ready')
        return ctx.step('render', null)
      })
      const { runId } = await engine.start('draw', null)
      // The retry's back-off runs on the fake clock: move it on until the run is done.
      for (let i = 0; i < 200 && (await engine.getRun(runId))?.status !== 'completed'; i++) {
        await env.skip(50)
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
      const outcome = await engine.waitForRun(runId, { timeoutMs: 10_000 })
      assert.deepEqual(outcome, { runId, status: 'completed', output: 'drawn' })
      const [local, remote] = await engine.getSteps(runId)
      assert.equal(local?.worker, null, 'a local step has no worker')
      assert.equal(remote?.attempts, 2)
      assert.equal(remote?.worker?.id, 'w-render')
      const { startedAt, finishedAt, queuedMs } = remote?.worker ?? {}
      assert.ok(startedAt instanceof Date && finishedAt instanceof Date)
      assert.ok(finishedAt.getTime() >= startedAt.getTime())
      assert.ok(Number.isSafeInteger(queuedMs) && (queuedMs as number) >= 0, `queuedMs ${queuedMs}`)
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
