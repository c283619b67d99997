/**
 * A run on a queue in the dashboard's API: its detail names the queue, and its timeline
 * (`api/runs/:id/steps`) leaves out the run's slot request — not a step of its body.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Engine, MemoryStore, silentLogger } from '@cairn/core'
import { call, fixture } from './helpers.ts'

void test('GET api/runs/:id names the run queue; its steps leave out the slot', async (t) => {
  const engine = new Engine({ store: new MemoryStore(), logger: silentLogger })
  engine.registerQueue('imports', { concurrency: 1 })
  engine.registerStep('load', (name: string) => `loaded ${name}`)
  engine.register('import', 1, async (ctx, name: string) => ctx.step('load', name), {
    queue: 'imports',
  })
  engine.register('plain', 1, async () => 'done')
  await engine.startDriving()
  t.after(() => engine.close(0))
  const f = await fixture({}, engine)
  t.after(() => f.close())
  const { runId } = await engine.start('import', 'shoes')
  assert.equal((await engine.waitForRun(runId, { timeoutMs: 5_000 })).status, 'completed')
  const plain = await engine.start('plain', null)
  await engine.waitForRun(plain.runId, { timeoutMs: 5_000 })

  const detail = await call(f.dashboard, `/api/runs/${runId}`)
  assert.equal(detail.status, 200)
  assert.equal(detail.json.run.queue, 'imports')
  assert.equal((await call(f.dashboard, `/api/runs/${plain.runId}`)).json.run.queue, null)
  const steps = await call(f.dashboard, `/api/runs/${runId}/steps`)
  assert.deepEqual(
    steps.json.steps.map((s: { name: string }) => s.name),
    ['load'],
  )
  assert.equal((await engine.store.loadCheckpoints(runId)).length, 2, 'the store keeps the slot')
})
