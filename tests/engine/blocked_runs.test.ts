/**
 * Blocked runs (issue 14): a remote step that no live worker can serve — nobody on its
 * transport, nobody running the step, or nobody offering every capability it requires — puts
 * its run in the `blocked` status naming what is missing; the run reads `waiting` again once a
 * capable worker is live, and completes when that worker returns the result. A fleet the
 * engine cannot read never blocks anything. On every store, with the memory transport.
 */
import assert from 'node:assert/strict'
import type { Engine } from '@cairn/core'
import type { EngineTransport } from '@cairn/core/contracts'
import { createMemoryTransport, type MemoryTransport } from '@cairn/core/testing'
import { createMetrics } from '@cairn/dashboard/metrics'
import { createWorker, type Worker } from '@cairn/worker'
import { eachStore } from '../helpers/harness.ts'

/** Past the dispatch hold, a fleet read and the blocked run's recheck (BLOCKED_RECHECK_MS). */
const PAST_A_RECHECK_MS = 31_000

function registerRender(engine: Engine, requires: string[] = []): void {
  engine.registerStep('render', () => 'never here', { transport: 'memory', requires })
  engine.register('draw', 1, async (ctx) => ctx.step('render', null))
}

async function statusAndWhy(engine: Engine, runId: string): Promise<[string, string]> {
  const run = await engine.getRun(runId)
  return [run?.status ?? 'missing', run?.waitingOn ?? '']
}

function gpuWorker(transport: MemoryTransport, render: () => unknown): Worker {
  return createWorker({
    transport: transport.worker(),
    capabilities: ['pdf', 'gpu'],
    steps: { render },
  })
}

eachStore('blocked runs', (test) => {
  test('no worker offers what the step requires: blocked, naming it, counted; a capable worker ends it', async (env) => {
    const transport = createMemoryTransport()
    const plain = createWorker({ transport: transport.worker(), steps: { render: () => 'plain' } })
    await plain.start()
    const gpu = gpuWorker(transport, () => 'drawn')
    try {
      const engine = await env.engine({ transports: { memory: transport.engine() } })
      registerRender(engine, ['pdf', 'gpu'])
      const { runId } = await engine.start('draw', null)
      await env.settle()
      await env.skip(PAST_A_RECHECK_MS)
      const [status, why] = await statusAndWhy(engine, runId)
      assert.equal(status, 'blocked')
      assert.match(why, /step "render" on memory .*blocked: .*"render" on "memory" offers gpu, pdf/)
      const listed = await engine.listRuns({ status: 'blocked' })
      assert.deepEqual(
        listed.runs.map((r) => r.id),
        [runId],
      )
      assert.deepEqual((await engine.listRuns({ status: 'waiting' })).runs, [])
      assert.equal((await engine.facetRuns()).byStatus.blocked, 1)
      assert.equal((await engine.backlog()).blocked, 1)
      const metrics = createMetrics(engine, { backlogCacheMs: 0 })
      assert.match(await metrics.render(), /^cairn_runs_blocked 1$/m)
      metrics.close()
      await gpu.start()
      const outcome = await engine.waitForRun(runId, { timeoutMs: 10_000 })
      assert.deepEqual(
        [outcome.status, outcome.status === 'completed' && outcome.output],
        ['completed', 'drawn'],
      )
    } finally {
      await plain.close(100)
      await gpu.close(100)
    }
  })

  test('nobody on the transport: blocked; reads waiting again once a capable worker runs the step', async (env) => {
    const transport = createMemoryTransport()
    const engine = await env.engine({ transports: { memory: transport.engine() } })
    registerRender(engine, ['gpu'])
    const { runId } = await engine.start('draw', null)
    await env.settle()
    await env.skip(PAST_A_RECHECK_MS)
    assert.deepEqual(await statusAndWhy(engine, runId), [
      'blocked',
      `step "render" on memory (attempt 1) blocked: no live worker on transport "memory"`,
    ])
    const release = Promise.withResolvers<void>()
    let started = false
    const gpu = gpuWorker(transport, async () => {
      started = true
      await release.promise
      return 'late'
    })
    await gpu.start()
    try {
      await waitFor(() => started)
      await env.skip(PAST_A_RECHECK_MS) // a fleet read with the worker, then the recheck
      const [status, why] = await statusAndWhy(engine, runId)
      assert.equal(status, 'waiting', `still ${status}: ${why}`)
      assert.doesNotMatch(why, /blocked/)
      release.resolve()
      const outcome = await engine.waitForRun(runId, { timeoutMs: 10_000 })
      assert.equal(outcome.status, 'completed')
    } finally {
      release.resolve()
      await gpu.close(100)
    }
  })

  test('a worker without the step does not serve it', async (env) => {
    const transport = createMemoryTransport()
    const other = createWorker({ transport: transport.worker(), steps: { ship: () => 1 } })
    await other.start()
    try {
      const engine = await env.engine({ transports: { memory: transport.engine() } })
      registerRender(engine)
      const { runId } = await engine.start('draw', null)
      await env.settle()
      await env.skip(PAST_A_RECHECK_MS)
      const [status, why] = await statusAndWhy(engine, runId)
      assert.equal(status, 'blocked')
      assert.match(why, /no live worker on "memory" runs step "render"/)
      await engine.cancel(runId, { reason: 'operator gave up' })
      assert.equal((await engine.getRun(runId))?.status, 'cancelled')
    } finally {
      await other.close(100)
    }
  })

  test('a fleet the engine cannot read never blocks a run', async (env) => {
    const transport = createMemoryTransport()
    const half = transport.engine()
    const unreadable: EngineTransport = {
      name: half.name,
      open: () => half.open(),
      close: () => half.close(),
      publish: (tasks) => half.publish(tasks),
      consume: (handler) => half.consume(handler),
      withdraw: (task) => half.withdraw(task),
      depth: (now, steps) => half.depth(now, steps),
      workers: () => Promise.reject(new Error('fleet unreadable')),
    }
    const engine = await env.engine({ transports: { memory: unreadable } })
    registerRender(engine, ['gpu'])
    const { runId } = await engine.start('draw', null)
    await env.settle()
    await env.skip(PAST_A_RECHECK_MS)
    const [status, why] = await statusAndWhy(engine, runId)
    assert.equal(status, 'waiting', why)
  })
})

async function waitFor(done: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 10))
  assert.ok(done(), 'timed out waiting')
}
