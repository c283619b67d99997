/**
 * What a run waits on, in its detail: one wait per open position (a child run named by its id,
 * a timer, a step's pending retry), none once the run has finished.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Engine, MemoryStore, silentLogger } from '@cairn/core'
import { call, fixture, type Fixture, type Json } from './helpers.ts'

const HOUR = 3_600_000

void describe('dashboard run waits', () => {
  let f: Fixture
  let engine: Engine
  before(async () => {
    engine = new Engine({ store: new MemoryStore(), logger: silentLogger })
    engine.register('inbox', 1, async (ctx, _input: unknown) => ctx.waitForSignal('go'))
    engine.register('fanout', 1, async (ctx, _input: unknown) => {
      await Promise.all([
        ctx.child('inbox', null),
        ctx.sleep(HOUR),
        ctx.localStep(
          'flaky',
          () => {
            throw new Error('not yet')
          },
          { retries: 3, backoff: { delay: HOUR, maxDelay: HOUR, jitter: 0 } },
        ),
      ])
    })
    engine.register('nap', 1, async (ctx, _input: unknown) => ctx.sleep(HOUR))
    await engine.startDriving()
    f = await fixture({}, engine)
  })
  after(async () => {
    await f.close()
    await engine.close(50)
  })

  void test('a run waiting at three positions lists each, the child by its run id', async () => {
    const { runId } = await engine.start('fanout', null)
    const detail = await until(runId, (run) => run.waits.length === 3)
    const children = await engine.listRuns({ parentRunId: runId })
    assert.equal(children.runs.length, 1)
    const byKind = new Map<string, Json>(detail.waits.map((w: Json) => [w.kind, w]))
    assert.deepEqual([...byKind.keys()].sort(), ['child', 'retry', 'timer'])
    assert.equal(byKind.get('child').runId, children.runs[0]?.id)
    assert.equal(byKind.get('child').seq, children.runs[0]?.parentSeq)
    assert.equal(typeof byKind.get('timer').until, 'string')
    assert.equal(byKind.get('retry').name, 'flaky')
    assert.ok(
      Date.parse(byKind.get('retry').at) > Date.now() + HOUR / 2,
      'the retry is an hour away',
    )
    await engine.cancel(runId)
  })

  void test('a finished run waits on nothing, whatever its history left open', async () => {
    const { runId } = await engine.start('nap', null)
    await until(runId, (run) => run.waits.length === 1)
    // Cancelled while asleep: its sleep's record stays open in the history, the run does not wait.
    await engine.cancel(runId)
    const run = await until(runId, (r) => r.status === 'cancelled')
    assert.deepEqual(run.waits, [])
  })

  async function until(runId: string, ready: (run: Json) => boolean): Promise<Json> {
    const deadline = Date.now() + 5_000
    for (;;) {
      const { status, json } = await call(f.dashboard, `/api/runs/${encodeURIComponent(runId)}`)
      assert.equal(status, 200)
      if (ready(json.run)) return json.run
      if (Date.now() > deadline)
        assert.fail(`waits never settled: ${JSON.stringify(json.run.waits)}`)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }
})
