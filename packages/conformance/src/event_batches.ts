/**
 * Event accumulators (appendEvent's `batches`, claimEventBatches, deleteEventBatch): a
 * debounce keeps the newest payload and moves its due time (capped by maxWaitMs); a batch keeps
 * every payload in order, due a window after its first or at once when full; an add belongs to
 * its event's append (a retry adds nothing); a claim takes due accumulators, closes them to
 * adds and leases them, exactly once per lease under racing claimers; a lapsed lease is taken
 * over; a delete ends one.
 */
import assert from 'node:assert/strict'
import type {
  ClaimedEventBatch,
  EventBatchAdd,
  EventRecord,
  StateStore,
} from '@cairn/core/contracts'
import { T0 } from './fixtures.ts'
import { expectRejection, same, type Define } from './harness.ts'

const KEEP_ALL = { before: 0, limit: 100 }
const LEASE = 30_000

function event(id: string, at: number, payload: unknown = { id }): EventRecord {
  return { id, name: 'product.changed', payload: JSON.stringify(payload), publishedAt: at }
}

function debounce(openId: string, extra: Partial<EventBatchAdd> = {}): EventBatchAdd {
  return {
    workflow: 'reindex',
    key: '',
    mode: 'debounce',
    windowMs: 1000,
    maxSize: null,
    maxWaitMs: null,
    openId,
    ...extra,
  }
}

function batch(openId: string, extra: Partial<EventBatchAdd> = {}): EventBatchAdd {
  return { ...debounce(openId), workflow: 'digest', mode: 'batch', maxSize: 3, ...extra }
}

const BOTH = ['reindex', 'digest']

async function claim(store: StateStore, now: number, owner = 'engine-a', limit = 10) {
  return store.claimEventBatches({ now, limit, owner, leaseMs: LEASE, workflows: BOTH })
}

function ids(claimed: readonly ClaimedEventBatch[]): string[] {
  return claimed.map((b) => b.id)
}

export function eventBatchTests(define: Define): void {
  define('a debounce keeps the newest payload; each event moves it due', async (store) => {
    const first = await store.appendEvent(event('e1', T0), KEEP_ALL, [debounce('acc-1')])
    same(
      first,
      {
        publishedAt: T0,
        appended: true,
        batches: [{ workflow: 'reindex', key: '', id: 'acc-1', size: 1, dueAt: T0 + 1000 }],
      },
      'the first event opens the accumulator with its openId',
    )
    const second = await store.appendEvent(event('e2', T0 + 600), KEEP_ALL, [debounce('acc-2')])
    same(
      second.batches,
      [{ workflow: 'reindex', key: '', id: 'acc-1', size: 1, dueAt: T0 + 1600 }],
      'the second joins it (its openId unused) and moves it due',
    )
    same((await claim(store, T0 + 1599)).claimed, [], 'not due before the quiet window ends')
    const { claimed, nextAt } = await claim(store, T0 + 1600)
    same(
      claimed,
      [
        {
          workflow: 'reindex',
          key: '',
          id: 'acc-1',
          mode: 'debounce',
          payloads: [JSON.stringify({ id: 'e2' })],
          eventIds: ['e2'],
          firstAt: T0,
          dueAt: T0 + 1600,
        },
      ],
      'the newest payload only',
    )
    assert.equal(nextAt, T0 + 1600 + LEASE, 'the claimed one may be taken over at its lease end')
  })

  define("a debounce's maxWaitMs caps how far events push it", async (store) => {
    const add = (openId: string) => debounce(openId, { maxWaitMs: 2500 })
    let dueAt = 0
    for (let i = 0; i < 5; i++) {
      const { batches } = await store.appendEvent(event(`e${i}`, T0 + i * 800), KEEP_ALL, [
        add(`acc-${i}`),
      ])
      dueAt = batches[0]?.dueAt ?? -1
      assert.equal(batches[0]?.id, 'acc-0', 'one accumulator')
    }
    assert.equal(dueAt, T0 + 2500, 'due no later than maxWaitMs after the first event')
  })

  define('a batch keeps every payload in order; full, it is due at once', async (store) => {
    const states = []
    for (let i = 0; i < 4; i++) {
      const { batches } = await store.appendEvent(event(`e${i}`, T0 + i), KEEP_ALL, [
        batch(`acc-${i}`),
      ])
      states.push(batches[0])
    }
    same(
      states,
      [
        { workflow: 'digest', key: '', id: 'acc-0', size: 1, dueAt: T0 + 1000 },
        { workflow: 'digest', key: '', id: 'acc-0', size: 2, dueAt: T0 + 1000 },
        { workflow: 'digest', key: '', id: 'acc-0', size: 3, dueAt: T0 + 2 },
        { workflow: 'digest', key: '', id: 'acc-3', size: 1, dueAt: T0 + 1003 },
      ],
      'the third fills it (due at once); the fourth opens the next',
    )
    const { claimed, nextAt } = await claim(store, T0 + 10)
    same(ids(claimed), ['acc-0'], 'the full one')
    same(
      claimed[0]?.payloads,
      ['e0', 'e1', 'e2'].map((id) => JSON.stringify({ id })),
      'in append order',
    )
    same(claimed[0]?.eventIds, ['e0', 'e1', 'e2'], 'with their events')
    assert.equal(nextAt, T0 + 1003, 'the open one is due next')
  })

  define(
    'a lowered maxSize opens the next batch; the fuller one stays due at its window end',
    async (store) => {
      for (let i = 0; i < 3; i++)
        await store.appendEvent(event(`e${i}`, T0 + i), KEEP_ALL, [batch('acc-0', { maxSize: 5 })])
      const { batches } = await store.appendEvent(event('e3', T0 + 3), KEEP_ALL, [
        batch('acc-3', { maxSize: 2 }),
      ])
      same(
        batches,
        [{ workflow: 'digest', key: '', id: 'acc-3', size: 1, dueAt: T0 + 1003 }],
        'a deploy with maxSize 2 finds 3 payloads (full by its rule): it opens the next one',
      )
      same((await claim(store, T0 + 999)).claimed, [], 'neither is due before its window ends')
      const { claimed } = await claim(store, T0 + 1000)
      same(
        claimed.map((b) => [b.id, b.eventIds]),
        [['acc-0', ['e0', 'e1', 'e2']]],
        'the older one, whole, at its window end: nothing is lost or moved',
      )
    },
  )

  define('workflows and keys accumulate apart', async (store) => {
    const adds = (n: number) => [
      debounce(`r-${n}`, { key: n % 2 === 0 ? 'even' : 'odd' }),
      batch(`d-${n}`),
    ]
    for (let n = 0; n < 4; n++) await store.appendEvent(event(`e${n}`, T0 + n), KEEP_ALL, adds(n))
    const { claimed } = await claim(store, T0 + 5000)
    same(
      claimed.map((b) => [b.workflow, b.key, b.id, b.eventIds]).sort(),
      [
        ['digest', '', 'd-0', ['e0', 'e1', 'e2']],
        ['digest', '', 'd-3', ['e3']],
        ['reindex', 'even', 'r-0', ['e2']],
        ['reindex', 'odd', 'r-1', ['e3']],
      ],
      'one accumulator per workflow and key (and per full batch)',
    )
  })

  define("a claim takes only its workflows' accumulators", async (store) => {
    await store.appendEvent(event('e1', T0), KEEP_ALL, [debounce('r'), batch('d')])
    const request = { now: T0 + 5000, limit: 10, owner: 'a', leaseMs: LEASE }
    const digest = await store.claimEventBatches({ ...request, workflows: ['digest', 'other'] })
    same(ids(digest.claimed), ['d'], 'the digest one only')
    assert.equal(digest.nextAt, T0 + 5000 + LEASE, "reindex's is not this claimer's to wait for")
    same(ids((await claim(store, T0 + 5000)).claimed), ['r'], 'left for its own engines')
  })

  define('a retried append adds nothing; an add is part of its event', async (store) => {
    await store.appendEvent(event('e1', T0), KEEP_ALL, [batch('acc-1')])
    const retried = await store.appendEvent(event('e1', T0 + 5), KEEP_ALL, [batch('acc-x')])
    same(retried, { publishedAt: T0, appended: false, batches: [] }, 'nothing added twice')
    const { claimed } = await claim(store, T0 + 1000)
    same(claimed[0]?.eventIds, ['e1'], 'the event counted once')
  })

  define('a claim closes an accumulator: later events open the next one', async (store) => {
    await store.appendEvent(event('e1', T0), KEEP_ALL, [debounce('acc-1')])
    same(ids((await claim(store, T0 + 1000)).claimed), ['acc-1'], 'due: claimed')
    const after = await store.appendEvent(event('e2', T0 + 1001), KEEP_ALL, [debounce('acc-2')])
    same(
      after.batches.map((b) => [b.id, b.size]),
      [['acc-2', 1]],
      'a new accumulator',
    )
    same((await claim(store, T0 + 1500, 'engine-b')).claimed, [], 'acc-1 is leased, acc-2 not due')
    const takeover = await claim(store, T0 + 1000 + LEASE, 'engine-b')
    same(
      takeover.claimed.map((b) => [b.id, b.eventIds]).sort(),
      [
        ['acc-1', ['e1']],
        ['acc-2', ['e2']],
      ],
      'a lapsed lease is taken over, whole; the due one with it',
    )
    assert.equal(await store.deleteEventBatch('reindex', '', 'acc-1'), true)
    assert.equal(await store.deleteEventBatch('reindex', '', 'acc-1'), false, 'once')
    assert.equal(await store.deleteEventBatch('reindex', 'other', 'acc-2'), false, 'by key too')
    const late = await claim(store, T0 + 1000 + 3 * LEASE)
    same(ids(late.claimed), ['acc-2'], 'the deleted one is gone for good')
    assert.equal(await store.deleteEventBatch('reindex', '', 'acc-2'), true)
    same(await claim(store, T0 + 1000 + 5 * LEASE), { claimed: [], nextAt: null }, 'none left')
  })

  define('a claim takes the oldest due first, at most `limit`', async (store) => {
    for (let i = 0; i < 5; i++)
      await store.appendEvent(event(`e${i}`, T0 + (5 - i) * 10), KEEP_ALL, [
        debounce(`acc-${i}`, { key: `k${i}` }),
      ])
    const first = await claim(store, T0 + 5000, 'engine-a', 2)
    same(ids(first.claimed), ['acc-4', 'acc-3'], 'oldest due first')
    assert.equal(first.nextAt, T0 + 1030, 'a due one is left: ask again at once')
    same(
      ids((await claim(store, T0 + 5000, 'engine-a', 10)).claimed),
      ['acc-2', 'acc-1', 'acc-0'],
      'then the rest',
    )
  })

  define('racing claims hand each accumulator to one claimer', async (store) => {
    for (let i = 0; i < 12; i++)
      await store.appendEvent(event(`e${i}`, T0), KEEP_ALL, [
        debounce(`acc-${i}`, { key: `k${i}` }),
      ])
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => claim(store, T0 + 1000, `engine-${i}`, 5)),
    )
    const all = results.flatMap((r) => ids(r.claimed)).sort()
    same(all, Array.from({ length: 12 }, (_, i) => `acc-${i}`).sort(), 'each exactly once')
  })

  define('payloads round-trip byte for byte, large ones too', async (store) => {
    const payloads = [{ text: 'é 🎉 \\u0000 "quoted"' }, { blob: 'x'.repeat(200_000) }, null]
    for (const [i, payload] of payloads.entries())
      await store.appendEvent(event(`e${i}`, T0 + i, payload), KEEP_ALL, [
        batch('acc', { maxSize: 1000 }),
      ])
    const { claimed } = await claim(store, T0 + 1000)
    same(
      claimed[0]?.payloads,
      payloads.map((p) => JSON.stringify(p)),
      'exactly as appended',
    )
  })

  define('bad adds and claims are refused; nothing is appended', async (store) => {
    const bad: Array<[string, Partial<EventBatchAdd> | EventBatchAdd[]]> = [
      ['mode', { mode: 'window' as never }],
      ['windowMs 0', { windowMs: 0 }],
      ['windowMs NaN', { windowMs: Number.NaN }],
      ['debounce with maxSize', { maxSize: 3 }],
      ['maxWaitMs 1.5', { maxWaitMs: 1.5 }],
      ['key too long', { key: 'k'.repeat(201) }],
      ['key with NUL', { key: 'a\u0000b' }],
      ['empty openId', { openId: '' }],
      ['empty workflow', { workflow: '' }],
      ['an unknown field', { extra: 1 } as never],
      ['twice one workflow and key', [debounce('a'), debounce('b')]],
    ]
    for (const [what, change] of bad) {
      const adds = Array.isArray(change) ? change : [debounce('acc', change)]
      await expectRejection(
        () => store.appendEvent(event(`bad-${what}`, T0), KEEP_ALL, adds),
        'E_INVALID_ARGUMENT',
        what,
      )
    }
    for (const size of [0, 1001, 2.5])
      await expectRejection(
        () => store.appendEvent(event('bad-size', T0), KEEP_ALL, [batch('acc', { maxSize: size })]),
        'E_INVALID_ARGUMENT',
        `batch maxSize ${size}`,
      )
    same(await store.loadEvents('product.changed', 0), [], 'no event was appended')
    await store.appendEvent(event('ok', T0), KEEP_ALL, [batch('in-use', { maxSize: 1 })])
    await expectRejection(
      () => store.appendEvent(event('reuse', T0 + 1), KEEP_ALL, [batch('in-use', { maxSize: 1 })]),
      'E_INVALID_ARGUMENT',
      'an openId in use',
    )
    same(
      (await store.loadEvents('product.changed', 0)).map((e) => e.id),
      ['ok'],
      'the refused append left nothing',
    )
    const ok = { now: T0, limit: 1, owner: 'a', leaseMs: 1, workflows: BOTH }
    const badClaims: unknown[] = [
      { ...ok, limit: 0 },
      { ...ok, limit: 101 },
      { ...ok, owner: '' },
      { ...ok, leaseMs: 0 },
      { ...ok, now: Number.NaN },
      { ...ok, workflows: [] },
      { ...ok, leaseMs: 8_640_000_000_000_000 }, // a lease end past any time
      { ...ok, workflows: [''] },
      { ...ok, workflows: 'digest' },
      { now: T0, limit: 1, owner: 'a', leaseMs: 1 },
      null,
    ]
    for (const request of badClaims)
      await expectRejection(
        () => store.claimEventBatches(request as never),
        'E_INVALID_ARGUMENT',
        `claim ${JSON.stringify(request)}`,
      )
    same(ids((await claim(store, T0)).claimed), ['in-use'], 'the bad claims took nothing')
  })
}
