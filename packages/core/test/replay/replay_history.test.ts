/**
 * replayHistory against histories recorded by real runs: each way users change a workflow
 * under running runs is caught with production's message; guarded and unchanged code passes;
 * nothing the history does not record runs.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { MemoryStore, type Engine, type RecordedHistory, type WorkflowContext } from '@cairn/core'
import { createTestEngine, replayHistory } from '@cairn/core/testing'

type Body = (ctx: WorkflowContext, input: string) => Promise<unknown>

const steps = (ctx: WorkflowContext, names: string[]) =>
  names.reduce<Promise<unknown>>(
    (previous, name) => previous.then(() => ctx.localStep(name, () => name)),
    Promise.resolve(),
  )

const ORDER: Body = async (ctx) => {
  await steps(ctx, ['reserve', 'charge', 'ship'])
  return 'done'
}

/** Run `body` as workflow "order" v1 on a test engine until `settle` ends, then export it. */
async function record(
  body: Body,
  extra: (engine: Engine) => void = () => {},
  drive: (t: Awaited<ReturnType<typeof createTestEngine>>, runId: string) => Promise<void> = (t) =>
    t.runUntilIdle(),
): Promise<RecordedHistory> {
  // Rare safety-net polls: a day of fake time is not 86 400 of them.
  const t = await createTestEngine({ pollIntervalMs: 60_000 })
  try {
    t.engine.register('order', 1, body)
    extra(t.engine)
    const { runId } = await t.engine.start('order', 'order-42')
    await drive(t, runId)
    // What a fixture file holds: the document after a trip through JSON.
    return JSON.parse(JSON.stringify(await t.engine.exportHistory(runId))) as RecordedHistory
  } finally {
    await t.close()
  }
}

async function assertCaught(history: RecordedHistory, changed: Body, message: string | RegExp) {
  await assert.rejects(replayHistory(changed, history), (error: Error & { code?: string }) => {
    assert.equal(error.code, 'E_NON_DETERMINISM')
    if (typeof message === 'string') assert.equal(error.message, message)
    else assert.match(error.message, message)
    return true
  })
}

void test('the exported document: format, run, checkpoints in order, payloads as stored', async () => {
  const history = await record(ORDER)
  assert.equal(history.format, 'cairn.history')
  assert.equal(history.version, 1)
  assert.equal(history.payloads, 'codec')
  assert.equal(history.run.workflow, 'order')
  assert.equal(history.run.version, '1')
  assert.equal(history.run.status, 'completed')
  assert.equal(history.run.input, JSON.stringify('order-42'))
  assert.deepEqual(
    history.checkpoints.map((c) => [c.seq, c.kind, c.name, c.status, c.order]),
    [
      [0, 'local', 'reserve', 'completed', 1],
      [1, 'local', 'charge', 'completed', 2],
      [2, 'local', 'ship', 'completed', 3],
    ],
  )
})

void test('unchanged code replays to the end without running a step', async () => {
  const history = await record(ORDER)
  let ran = 0
  const report = await replayHistory(async (ctx) => {
    for (const name of ['reserve', 'charge', 'ship']) await ctx.localStep(name, () => ran++)
    return 'done'
  }, history)
  assert.equal(ran, 0, 'replayed positions return their records')
  assert.deepEqual(report, {
    runId: history.run.id,
    workflow: 'order',
    version: '1',
    positions: 3,
    endedAt: { kind: 'finished', status: 'completed' },
  })
})

void test('reordered steps are caught', async () => {
  const history = await record(ORDER)
  await assertCaught(
    history,
    (ctx) => steps(ctx, ['charge', 'reserve', 'ship']),
    'position 0: history records local "reserve", the workflow code asked for local "charge"',
  )
})

void test('a step inserted without ctx.patched is caught', async () => {
  const history = await record(ORDER)
  await assertCaught(
    history,
    (ctx) => steps(ctx, ['reserve', 'fraud-check', 'charge', 'ship']),
    'position 1: history records local "charge", the workflow code asked for local "fraud-check"',
  )
})

void test('a renamed step is caught', async () => {
  const history = await record(ORDER)
  await assertCaught(
    history,
    (ctx) => steps(ctx, ['reserve', 'charge', 'dispatch']),
    'position 2: history records local "ship", the workflow code asked for local "dispatch"',
  )
})

void test('a removed step is caught, in the middle and at the end', async () => {
  const history = await record(ORDER)
  await assertCaught(
    history,
    (ctx) => steps(ctx, ['reserve', 'ship']),
    'position 1: history records local "charge", the workflow code asked for local "ship"',
  )
  await assertCaught(
    history,
    (ctx) => steps(ctx, ['reserve', 'charge']),
    /^history records local "ship" at position 2, but the workflow code never asked for it/,
  )
})

void test('a step guarded by ctx.patched passes; the same step unguarded does not', async () => {
  const history = await record(ORDER)
  let fraudChecks = 0
  const report = await replayHistory(async (ctx) => {
    await ctx.localStep('reserve', () => 'reserve')
    if (ctx.patched('fraud-check')) await ctx.localStep('fraud-check', () => fraudChecks++)
    await steps(ctx, ['charge', 'ship'])
    return 'done'
  }, history)
  assert.equal(fraudChecks, 0)
  assert.deepEqual(report.endedAt, { kind: 'finished', status: 'completed' })
  await assertCaught(
    history,
    (ctx) => steps(ctx, ['reserve', 'fraud-check', 'charge', 'ship']),
    /position 1: .* asked for local "fraud-check"/,
  )
})

void test('a changed child workflow name is caught', async () => {
  const parent: Body = async (ctx) => ctx.child('invoice', 'order-42')
  const child = (engine: Engine) =>
    engine.register('invoice', 1, async (ctx) => ctx.localStep('pdf', () => 'pdf'))
  const history = await record(parent, child)
  assert.deepEqual(
    history.checkpoints.map((c) => [c.kind, c.name, c.status]),
    [['child', 'invoice', 'completed']],
  )
  await assertCaught(
    history,
    async (ctx) => ctx.child('billing', 'order-42'),
    'position 0: history records child "invoice", the workflow code asked for child "billing"',
  )
})

/** A workflow with a signal, a sleep and a child: each replays from its record. */
const RICH: Body = async (ctx, id) => {
  const approval = await ctx.waitForSignal<string>('approve')
  await ctx.sleep('1h')
  const invoice = await ctx.child('invoice', id)
  await ctx.localStep('notify', () => `${approval} ${String(invoice)}`)
  return invoice
}
const INVOICE = (engine: Engine) =>
  engine.register('invoice', 1, async (ctx, id: string) => ctx.localStep('pdf', () => `pdf ${id}`))

async function signalThenFinish(t: Awaited<ReturnType<typeof createTestEngine>>, runId: string) {
  await t.runUntilIdle()
  await t.engine.signal({ runId, name: 'approve' }, 'yes')
  await t.runUntilIdle()
}

void test('unchanged code with a signal, a sleep and a child passes (registration form)', async () => {
  const history = await record(RICH, INVOICE, signalThenFinish)
  assert.equal(history.run.status, 'completed')
  const report = await replayHistory(
    {
      register: (engine) => {
        engine.register('order', 1, RICH)
        INVOICE(engine)
      },
    },
    history,
  )
  assert.equal(report.positions, 4)
  assert.deepEqual(report.endedAt, { kind: 'finished', status: 'completed' })
})

void test('a run waiting mid-way replays to its open wait; a step past the end is reached, not run', async () => {
  // Recorded while sleeping: the signal and the sleep's start are in the history, not its end.
  const history = await record(RICH, INVOICE, async (t, runId) => {
    await t.runUntilIdle()
    await t.engine.signal({ runId, name: 'approve' }, 'yes')
    await t.skipTime('1m')
  })
  assert.equal(history.run.status, 'waiting')
  assert.deepEqual(
    history.checkpoints.map((c) => [c.kind, c.status]),
    [
      ['signal', 'completed'],
      ['sleep', 'waiting'],
    ],
  )
  const waiting = await replayHistory(
    { register: (e) => (e.register('order', 1, RICH), INVOICE(e)) },
    history,
  )
  assert.equal(waiting.positions, 1)
  assert.equal(waiting.endedAt.kind, 'waiting')
  assert.match((waiting.endedAt as { on: string }).on, /sleep/)

  // The open sleep is a recorded position too: a step in its place is caught.
  await assertCaught(
    history,
    async (ctx) => {
      await ctx.waitForSignal('approve')
      return ctx.localStep('notify', () => 'x')
    },
    'position 1: history records sleep "sleep", the workflow code asked for local "notify"',
  )

  // Recorded before the signal came: the code goes past the history at a new step.
  const early = await record(async (ctx) => {
    await ctx.localStep('reserve', () => 'reserve')
    return ctx.waitForSignal('approve')
  })
  let shipped = 0
  const report = await replayHistory(async (ctx) => {
    await ctx.localStep('reserve', () => 'reserve')
    await ctx.localStep('ship', () => shipped++)
    return ctx.waitForSignal('approve')
  }, early)
  assert.equal(shipped, 0, 'a step past the history is never run')
  assert.deepEqual(report.endedAt, { kind: 'new-code', what: 'local "ship"', seq: 1 })
})

void test("the error's message is the one production parks the run with", async () => {
  const store = new MemoryStore()
  const first = await createTestEngine({ store })
  first.engine.register('order', 1, async (ctx) => {
    await ctx.localStep('reserve', () => 'reserve')
    await ctx.sleep('1h')
    return ctx.localStep('ship', () => 'ship')
  })
  const { runId } = await first.engine.start('order', 'order-42')
  await first.skipTime('1m')
  const history = JSON.parse(
    JSON.stringify(await first.engine.exportHistory(runId)),
  ) as RecordedHistory
  await first.close()

  const changed: Body = async (ctx) => {
    await ctx.localStep('reserve', () => 'reserve')
    await ctx.localStep('fraud-check', () => 'ok')
    await ctx.sleep('1h')
    return ctx.localStep('ship', () => 'ship')
  }
  const second = await createTestEngine({ store, clock: first.clock })
  second.engine.register('order', 1, changed)
  await second.skipTime('1h')
  const parked = await second.engine.getRun(runId)
  await second.close()
  assert.equal(parked?.status, 'parked')

  await assert.rejects(
    replayHistory(changed, history),
    (error: Error & { code?: string; recorded?: unknown; attempted?: unknown }) => {
      assert.equal(error.code, 'E_NON_DETERMINISM')
      assert.equal(error.message, parked?.parkReason?.message)
      assert.deepEqual(error.recorded, { seq: 1, name: 'sleep', kind: 'sleep' })
      assert.deepEqual(error.attempted, { seq: 1, name: 'fraud-check', kind: 'local' })
      return true
    },
  )
})

void test('registered steps, side effects and compensations are never run by a replay', async () => {
  const calls: string[] = []
  const register = (engine: Engine) => {
    engine.registerStep('charge', async (amount: number) => {
      calls.push('charge')
      return amount
    })
    engine.register('order', 1, async (ctx) => {
      const id = await ctx.sideEffect(() => (calls.push('id'), 'id-1'), 'id')
      const charged = await ctx.step('charge', 5, { compensate: () => calls.push('refund') })
      await ctx.localStep(
        'ship',
        () => {
          calls.push('ship')
          throw new Error('no truck')
        },
        { retries: 0 },
      )
      return [id, charged]
    })
  }
  const t = await createTestEngine()
  register(t.engine)
  const { runId } = await t.engine.start('order', null)
  await t.runUntilIdle()
  const history = JSON.parse(JSON.stringify(await t.engine.exportHistory(runId))) as RecordedHistory
  await t.close()
  assert.equal(history.run.status, 'failed')
  assert.deepEqual(calls, ['id', 'charge', 'ship', 'refund'])

  calls.length = 0
  const report = await replayHistory({ register }, history)
  assert.deepEqual(calls, [], 'nothing ran: every position replayed from its record')
  assert.deepEqual(report.endedAt, { kind: 'finished', status: 'failed' })
  assert.equal(report.positions, 4)
})

void test('refusals: a malformed history, a workflow the registration lacks, an unknown run', async () => {
  const history = await record(ORDER)
  await assert.rejects(
    replayHistory(ORDER, { ...history, version: 2 } as unknown as RecordedHistory),
    {
      code: 'E_INVALID_ARGUMENT',
      message: /version 2 is not one this Cairn reads/,
    },
  )
  await assert.rejects(
    replayHistory(ORDER, { ...history, checkpoints: [{ seq: -1 }] } as unknown as RecordedHistory),
    { code: 'E_INVALID_ARGUMENT', message: /checkpoints\[0\]\.seq/ },
  )
  await assert.rejects(
    replayHistory({ register: (engine) => engine.register('order', 2, ORDER) }, history),
    { code: 'E_WORKFLOW_NOT_REGISTERED', message: /no workflow "order" version "1"/ },
  )
  const t = await createTestEngine()
  await assert.rejects(t.engine.exportHistory('nope'), { code: 'E_RUN_NOT_FOUND' })
  await t.close()
})
