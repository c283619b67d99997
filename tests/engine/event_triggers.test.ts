/**
 * Event-triggered starts (issue 15 point 4): a workflow's `onEvent` names the broadcast events
 * that start a run of it; `engine.publishEvent` starts one per matching event, exactly once per
 * event id (or per derived run id) however often the publish is retried and from whichever
 * engine. Runs are counted from the store, never from the publish's own report alone.
 */
import assert from 'node:assert/strict'
import { silentLogger, type Engine } from '@cairn/core'
import { eachStore } from '../helpers/harness.ts'
import { FlakyStore } from '../helpers/flaky_store.ts'

async function runsOf(engine: Engine, workflow: string) {
  const { runs } = await engine.listRuns({ workflow })
  return runs.map((run) => run.id).sort()
}

eachStore('event-triggered starts', (test) => {
  test('an event starts a run of each workflow whose onEvent names it, once per event id, from any engine', async (env) => {
    const engine = await env.engine()
    const greeted: unknown[] = []
    engine.register(
      'welcome',
      1,
      async (ctx, user: { id: string }) =>
        ctx.localStep('greet', () => (greeted.push(user), `hi ${user.id}`)),
      { onEvent: ['user.signed_up'] },
    )
    engine.register('audit', 1, async (_ctx, user: { id: string }) => user.id, {
      onEvent: [{ name: 'user.signed_up', match: { plan: 'pro' } }],
    })
    engine.register('unrelated', 1, async () => null, { onEvent: ['order.paid'] })

    const first = await engine.publishEvent(
      'user.signed_up',
      { id: 'u1', plan: 'free' },
      { eventId: 'e1' },
    )
    assert.deepEqual(first.started, [
      { workflow: 'welcome', runId: 'evt:welcome:e1', status: 'started' },
    ])
    assert.deepEqual(await engine.waitForRun('evt:welcome:e1'), {
      runId: 'evt:welcome:e1',
      status: 'completed',
      output: 'hi u1',
    })
    assert.deepEqual(greeted, [{ id: 'u1', plan: 'free' }], 'the payload is the input')

    // The publish retried (its acknowledgement lost), here and from another engine.
    const again = await engine.publishEvent('user.signed_up', { id: 'u1' }, { eventId: 'e1' })
    assert.deepEqual(again.started, [
      { workflow: 'welcome', runId: 'evt:welcome:e1', status: 'existing' },
    ])
    const other = await env.engine({ drive: false })
    other.register('welcome', 1, async () => null, { onEvent: ['user.signed_up'] })
    other.register('audit', 1, async () => null, {
      onEvent: [{ name: 'user.signed_up', match: { plan: 'pro' } }],
    })
    const pro = { id: 'u2', plan: 'pro' }
    const fromOther = await other.publishEvent('user.signed_up', pro, { eventId: 'e2' })
    assert.deepEqual(
      fromOther.started.map((s) => `${s.workflow} ${s.status}`),
      ['welcome started', 'audit started'],
    )
    const retried = await engine.publishEvent('user.signed_up', pro, { eventId: 'e2' })
    assert.deepEqual(
      retried.started.map((s) => `${s.workflow} ${s.status}`),
      ['welcome existing', 'audit existing'],
    )
    await env.settle()
    assert.deepEqual(await runsOf(engine, 'welcome'), ['evt:welcome:e1', 'evt:welcome:e2'])
    assert.deepEqual(await runsOf(engine, 'audit'), ['evt:audit:e2'])
    assert.deepEqual(await runsOf(engine, 'unrelated'), [])
    await env.skip(60_000) // the driving engine's poll takes the runs the other one created
    assert.equal((await engine.waitForRun('evt:audit:e2')).status, 'completed')
  })

  test('a derived runId makes one run per id; a refused trigger is reported and the rest go on', async (env) => {
    const warned: unknown[] = []
    const logger = { ...silentLogger, warn: (obj: unknown) => void warned.push(obj) }
    const engine = await env.engine({ logger })
    const sku = (payload: unknown) => (payload as { sku: string }).sku
    engine.register('reindex', 1, async (_ctx, product: { sku: string }) => product.sku, {
      onEvent: [{ name: 'product.changed', runId: (p) => `reindex-${sku(p)}` }],
    })
    engine.register('bad-id', 1, async () => null, {
      onEvent: [{ name: 'product.changed', runId: () => '' }],
    })
    engine.register('bad-match', 1, async () => null, {
      onEvent: [
        {
          name: 'product.changed',
          match: () => {
            throw new Error('no match today')
          },
        },
      ],
    })
    engine.register('one-per-sku', 1, async (ctx) => ctx.sleep('1h'), {
      onEvent: ['product.changed'],
      singleton: { key: sku, onFull: 'reject' },
    })
    engine.register('watcher', 1, async (ctx) => ctx.waitForEvent('product.changed'))
    const watcher = await engine.start('watcher', null)
    await env.settle()

    const a = await engine.publishEvent('product.changed', { sku: 'a', v: 1 }, { eventId: 'p1' })
    const statuses = (report: typeof a) =>
      Object.fromEntries(report.started.map((s) => [s.workflow, s.error?.code ?? s.status]))
    assert.deepEqual(statuses(a), {
      reindex: 'started',
      'bad-id': 'E_INVALID_ARGUMENT',
      'bad-match': 'E_INVALID_ARGUMENT',
      'one-per-sku': 'started',
    })
    assert.match(String(a.started[2]?.error?.message), /the trigger threw: no match today/)
    assert.equal(a.delivered, 1, 'the waiting run received the event all the same')
    assert.equal((await engine.waitForRun(watcher.runId)).status, 'completed')

    // A second change of the same product: the reindex run of that id exists (another input);
    // the singleton key is full and rejects.
    const b = await engine.publishEvent('product.changed', { sku: 'a', v: 2 }, { eventId: 'p2' })
    assert.deepEqual(statuses(b), {
      reindex: 'existing',
      'bad-id': 'E_INVALID_ARGUMENT',
      'bad-match': 'E_INVALID_ARGUMENT',
      'one-per-sku': 'E_SINGLETON_FULL',
    })
    await env.settle()
    assert.deepEqual(await runsOf(engine, 'reindex'), ['reindex-a'])
    assert.deepEqual(await runsOf(engine, 'one-per-sku'), ['evt:one-per-sku:p1'])
    assert.deepEqual(await runsOf(engine, 'bad-id'), [])
    // Each refusal is logged at warn, naming the event and the workflow (2 + 3 above).
    const refusals = warned.filter((entry) => (entry as { status?: string }).status === 'refused')
    assert.deepEqual(
      refusals.map((entry) => {
        const { eventId, workflow } = entry as { eventId: string; workflow: string }
        return `${eventId} ${workflow}`
      }),
      ['p1 bad-id', 'p1 bad-match', 'p2 bad-id', 'p2 bad-match', 'p2 one-per-sku'],
    )
  })

  test('a store failure while starting fails the publish; retrying it starts what is missing, once', async (env) => {
    // Not driving: the only writes are the publishes' (each injected failure hits a create).
    const store = new FlakyStore(env.handle.reopen())
    const engine = await env.engine({ store, drive: false })
    engine.register('welcome', 1, async (_ctx, user: { id: string }) => user.id, {
      onEvent: ['user.signed_up'],
    })
    store.failNext(1, 'after') // the create commits, its answer is lost
    await assert.rejects(engine.publishEvent('user.signed_up', { id: 'u1' }, { eventId: 'e1' }), {
      code: 'E_STORE_FAILURE',
    })
    const retried = await engine.publishEvent('user.signed_up', { id: 'u1' }, { eventId: 'e1' })
    assert.deepEqual(retried.started, [
      { workflow: 'welcome', runId: 'evt:welcome:e1', status: 'existing' },
    ])
    store.failNext(1, 'before') // nothing commits
    await assert.rejects(engine.publishEvent('user.signed_up', { id: 'u2' }, { eventId: 'e2' }), {
      code: 'E_STORE_FAILURE',
    })
    const second = await engine.publishEvent('user.signed_up', { id: 'u2' }, { eventId: 'e2' })
    assert.deepEqual(
      second.started.map((s) => s.status),
      ['started'],
    )
    await env.settle()
    assert.deepEqual(await runsOf(engine, 'welcome'), ['evt:welcome:e1', 'evt:welcome:e2'])
  })

  test('default run ids are unambiguous and bounded; a singleton key that throws is a refusal, not a failed publish', async (env) => {
    const engine = await env.engine({ drive: false })
    engine.register('b:c', 1, async () => null, { onEvent: ['signup'] })
    engine.register('b', 1, async () => null, { onEvent: ['signup'] })
    engine.register('keyed', 1, async () => null, {
      onEvent: ['signup'],
      singleton: { key: (p: { sku: { id: string } }) => p.sku.id },
    })
    // Workflow "b:c" with event "a" and workflow "b" with event "c:a" would both be evt:b:c:a
    // unescaped; and an event id of 250 characters would overflow a run id.
    const first = await engine.publishEvent('signup', { sku: { id: 's' } }, { eventId: 'a' })
    const second = await engine.publishEvent('signup', {}, { eventId: 'c:a' })
    const long = await engine.publishEvent(
      'signup',
      { sku: { id: 't' } },
      { eventId: 'x'.repeat(250) },
    )
    const ids = (report: typeof first) => report.started.map((s) => s.runId)
    assert.deepEqual(ids(first), ['evt:b\\:c:a', 'evt:b:a', 'evt:keyed:a'])
    assert.deepEqual(ids(second), ['evt:b\\:c:c:a', 'evt:b:c:a', 'evt:keyed:c:a'])
    assert.deepEqual(
      [...first.started, ...second.started].map((s) => s.error?.code ?? s.status),
      ['started', 'started', 'started', 'started', 'started', 'E_INVALID_ARGUMENT'],
      'the singleton key threw on a payload without sku: that start is refused',
    )
    assert.match(String(second.started[2]?.error?.message), /the start threw/)
    for (const started of long.started) {
      assert.match(String(started.runId), /^evt~[0-9a-f]{64}$/)
      assert.equal(started.status, 'started')
    }
    assert.equal(new Set(ids(long)).size, 3)
  })

  test('a sparse onEvent is refused at registration; a publish never trips on a trigger', async (env) => {
    const engine = await env.engine({ drive: false })
    // eslint-disable-next-line no-sparse-arrays -- the point: a hole in the array
    const holed = ['a', , 'b']
    assert.throws(() => engine.register('w', 1, async () => null, { onEvent: holed as never }), {
      code: 'E_INVALID_ARGUMENT',
      message: /onEvent\[1\]: an entry is an event name/,
    })
    assert.deepEqual((await engine.publishEvent('a', 1)).started, [])
  })

  test('a bad onEvent fails registration with E_INVALID_ARGUMENT naming the entry; nothing is registered', async (env) => {
    const engine = await env.engine({ drive: false })
    const body = async () => null
    const bad: Array<[unknown, RegExp]> = [
      ['user.signed_up', /onEvent is an array/],
      [Array.from({ length: 33 }, () => 'e'), /at most 32/],
      [[5], /onEvent\[0\]: an entry is an event name or/],
      [[''], /onEvent\[0\]: the event name/],
      [['cairn:internal'], /reserved for Cairn/],
      [[{ name: 'e', batch: { mode: 'debounce', windowMs: 0 } }], /onEvent\[0\]: batch windowMs/],
      [[{ name: 'e', match: 'plan' }], /onEvent\[0\]: match must be a plain object/],
      [[{ name: 'e', match: { plan: { nested: 1 } } }], /match values are strings/],
      [[{ name: 'e', runId: 'fixed' }], /runId is a function/],
      [['ok', { name: 'e', when: 1 }], /onEvent\[1\]: unknown option "when"/],
      [[JSON.parse('{"__proto__": {"name": "e"}}')], /onEvent\[0\]: unknown option "__proto__"/],
    ]
    for (const [onEvent, message] of bad)
      assert.throws(() => engine.register('w', 1, body, { onEvent } as never), {
        code: 'E_INVALID_ARGUMENT',
        message,
      })
    assert.deepEqual(engine.registeredWorkflows(), [])
  })
})
