/**
 * The run stream and a settled position's log record (step_log_sender.ts): lines logged after
 * the step settled (code the step left running) reach the stream, and a logs read that fails
 * in the refresh that saw the step settle loses nothing (the next refresh reads again).
 */
import assert from 'node:assert/strict'
import { after, describe, test } from 'node:test'
import { Engine, MemoryStore } from '@cairn/core'
import { serveDashboard } from '@cairn/dashboard'
import { TOKEN, fixture, registerWorkflows, type Json } from './helpers.ts'
import { SseReader, type SseEvent } from './sse_reader.ts'

const silent = {
  trace() {},
  debug() {},
  info() {},
  warn() {},
  error() {},
  fatal() {},
  child() {
    return silent
  },
} as never
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const logsOf = (e: SseEvent, seq: number): Json[] =>
  e.event === 'logs' ? ((e.data as Json).logs as Json[]).filter((r) => r.seq === seq) : []

void describe('run stream: log records of settled positions', () => {
  const closers: Array<() => Promise<void>> = []
  after(async () => {
    for (const c of closers) await c()
  })

  async function setup() {
    const engine = new Engine({
      store: new MemoryStore(),
      logger: silent,
      stepLogs: { flushIntervalMs: 50 },
    })
    registerWorkflows(engine)
    let open!: () => void
    const gate = new Promise<void>((r) => (open = r))
    engine.register('late', 1, async (ctx) => {
      await ctx.localStep('work', async (step) => {
        step.log.info('in step')
        // code the step left running: logs after the outcome
        void sleep(300).then(() => step.log.info('late line'))
        return 1
      })
      return ctx.waitForSignal('go')
    })
    engine.register('gated', 1, async (ctx) => {
      await ctx.localStep('work', async (step) => {
        step.log.info('first')
        await gate
        step.log.info('final line')
        return 1
      })
      return ctx.waitForSignal('go')
    })
    await engine.startDriving()
    const f = await fixture(
      { stream: { keepAliveMs: 5_000, runPollMs: 50, listPollMs: 50 } },
      engine,
    )
    const served = await serveDashboard(f.dashboard)
    closers.push(async () => {
      await served.close()
      await f.close()
      await engine.close(50)
    })
    const stream = async (path: string) => {
      const res = await fetch(`${served.url}${path}`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      })
      assert.equal(res.status, 200)
      return new SseReader(res)
    }
    return { engine, stream, open: () => open() }
  }

  void test('a line logged after the step settled is streamed (?seq=0)', async () => {
    const { engine, stream } = await setup()
    const { runId } = await engine.start('late', null)
    const reader = await stream(`/api/stream/runs/${runId}?seq=0`)
    await reader.until((e) => e.event === 'step' && (e.data as Json).status === 'completed')
    // wait until the store holds the late line
    for (let i = 0; i < 100; i++) {
      const rec = (await engine.getStepLogs(runId)).find((r) => r.seq === 0)
      if (rec?.lines.some((l) => l.message === 'late line')) break
      await sleep(20)
    }
    const stored = (await engine.getStepLogs(runId)).find((r) => r.seq === 0)
    assert.ok(
      stored?.lines.some((l) => l.message === 'late line'),
      'store has the late line',
    )
    const events = await reader.until(
      (e) => logsOf(e, 0).some((r) => r.lines.some((l: Json) => l.message === 'late line')),
      2_000,
    )
    assert.ok(events.length > 0)
    await reader.cancel()
  })

  void test('a logs read failing as the step settles loses none of its lines', async () => {
    const { engine, stream, open } = await setup()
    const { runId } = await engine.start('gated', null)
    const reader = await stream(`/api/stream/runs/${runId}`)
    await reader.until((e) => logsOf(e, 0).length > 0)
    const store = engine.options.store
    const original = store.loadStepLogs.bind(store)
    let failures = 0
    let armed = false
    store.loadStepLogs = async (id, page) => {
      if (armed && failures === 0) {
        failures++
        throw new Error('db blip')
      }
      return original(id, page)
    }
    // Fail exactly the read of the refresh that sees the step complete.
    const origGetSteps = engine.getStepsPage.bind(engine)
    engine.getStepsPage = async (id, page) => {
      const p = await origGetSteps(id, page)
      if (p.steps.some((s) => s.seq === 0 && s.status === 'completed')) armed = true
      return p
    }
    open()
    await reader.until((e) => e.event === 'step' && (e.data as Json).status === 'completed')
    const stored = (await engine.getStepLogs(runId)).find((r) => r.seq === 0)
    assert.equal(failures, 1, 'the injected failure happened')
    assert.ok(stored?.lines.some((l) => l.message === 'final line'))
    await reader.until(
      (e) => logsOf(e, 0).some((r) => r.lines.some((l: Json) => l.message === 'final line')),
      2_000,
    )
    await reader.cancel()
  })
})
