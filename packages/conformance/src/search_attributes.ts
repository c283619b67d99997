/**
 * Search attributes: written by a saveCheckpoint in its transaction iff the checkpoint
 * applies, read back typed (loadSearchAttributes), and matched by listRuns filters — every
 * operator, within one type only, ANDed with the other filters and the cursor.
 */
import assert from 'node:assert/strict'
import type {
  Fence,
  ListRunsQuery,
  SearchAttributeFilter,
  SearchAttributes,
  SearchAttributeUpsert,
  StateStore,
  StoreOp,
} from '@cairn/core/contracts'
import { BILLING_V1, checkpoint, newRun, T0 } from './fixtures.ts'
import { expectRejection, same, type Define } from './harness.ts'
import {
  apply,
  applyOne,
  checkpoints,
  expectApplied,
  finish,
  ids,
  list,
  listAll,
  startRun,
} from './store_calls.ts'

const EXPECTED_INVALID = 'E_INVALID_ARGUMENT'

function upsertOp(fence: Fence, seq: number, attributes: SearchAttributeUpsert): StoreOp {
  return {
    type: 'saveCheckpoint',
    fence,
    checkpoint: checkpoint(fence.runId, seq, { kind: 'search_attrs', name: 'search_attributes' }),
    searchAttributes: attributes,
  }
}

/** Saves an applied checkpoint at `seq` carrying `attributes`. */
async function upsert(
  store: StateStore,
  fence: Fence,
  seq: number,
  attributes: SearchAttributeUpsert,
): Promise<void> {
  expectApplied(await applyOne(store, upsertOp(fence, seq, attributes), T0 + 10), `upsert ${seq}`)
}

async function attributesOf(store: StateStore, runId: string): Promise<SearchAttributes> {
  const found = await store.loadSearchAttributes([runId])
  assert.ok(found instanceof Map, 'loadSearchAttributes must resolve to a Map')
  return found.get(runId) ?? {}
}

async function matching(
  store: StateStore,
  filter: SearchAttributeFilter,
  query: ListRunsQuery = {},
) {
  return ids((await list(store, { ...query, searchAttributes: filter })).runs)
}

/** Runs n1..n5, created in that order, with `n` = 1..5, `label` 'v1'..'v5' and `odd`. */
async function numbered(store: StateStore): Promise<void> {
  for (let n = 1; n <= 5; n++) {
    const fence = await startRun(store, `n${n}`, T0 + n)
    await upsert(store, fence, 0, { n, label: `v${n}`, odd: n % 2 === 1 })
  }
}

export function searchAttributeTests(define: Define): void {
  define('a saved checkpoint writes its attributes, typed, in its transaction', async (store) => {
    const fence = await startRun(store, 'run-1', T0)
    const due = new Date(T0 + 12_345)
    const results = await apply(
      store,
      [
        { type: 'saveCheckpoint', fence, checkpoint: checkpoint('run-1', 0) },
        upsertOp(fence, 1, { customer: 'acme', amount: 12.5, vip: true, due, gone: null }),
      ],
      T0 + 1,
    )
    results.forEach((result, i) => expectApplied(result, `op ${i}`))
    const stored = await attributesOf(store, 'run-1')
    same(stored, { customer: 'acme', amount: 12.5, vip: true, due }, 'attributes read back')
    assert.ok(stored.due instanceof Date, 'a time comes back as a Date')
    same(
      (await checkpoints(store, 'run-1')).map((c) => c.kind),
      ['local', 'search_attrs'],
      'the checkpoints',
    )
  })

  define('values round-trip exactly: numbers, text by the byte, times to the ms', async (store) => {
    const fence = await startRun(store, 'run-1', T0)
    const values: SearchAttributeUpsert = {
      tenth: 0.1,
      huge: -1.7976931348623157e308,
      tiny: 5e-324,
      safe: 2 ** 53,
      zero: 0,
      spaced: 'a ',
      quote: "x'); DROP TABLE cairn_runs; --",
      astral: '\u{1F600}'.repeat(128),
      empty: '',
      epoch: new Date(0),
      before: new Date(-86_400_000),
      no: false,
    }
    await upsert(store, fence, 0, values)
    same(await attributesOf(store, 'run-1'), values, 'attributes read back')
    same(await matching(store, { spaced: 'a' }), [], "'a ' is not 'a' (no padding)")
    same(await matching(store, { spaced: 'a ' }), ['run-1'], "'a ' matches itself")
    same(await matching(store, { quote: values.quote as string }), ['run-1'], 'bound, not spliced')
    same(
      await matching(store, { tenth: 0.1, tiny: { gt: 0 }, safe: 2 ** 53 }),
      ['run-1'],
      'numbers',
    )
  })

  define('null removes an attribute; a new value replaces one of any type', async (store) => {
    const fence = await startRun(store, 'run-1', T0)
    await upsert(store, fence, 0, { a: 1, b: 'two', c: true })
    await upsert(store, fence, 1, { a: null, b: 2, missing: null })
    same(await attributesOf(store, 'run-1'), { b: 2, c: true }, 'after removal and retyping')
    same(await matching(store, { b: 'two' }), [], 'the old text value is gone')
    same(await matching(store, { b: 2 }), ['run-1'], 'the new number value')
    same(await matching(store, { a: { ne: 0 } }), [], 'a removed attribute matches nothing')
  })

  define('the last upsert of a name in one batch wins', async (store) => {
    const fence = await startRun(store, 'run-1', T0)
    const results = await apply(
      store,
      [
        upsertOp(fence, 0, { stage: 'one', keep: 1 }),
        upsertOp(fence, 1, { stage: 'two' }),
        upsertOp(fence, 2, { keep: null, stage: 'three' }),
      ],
      T0 + 1,
    )
    results.forEach((result, i) => expectApplied(result, `op ${i}`))
    same(await attributesOf(store, 'run-1'), { stage: 'three' }, 'attributes after the batch')
  })

  define('a conflicting (replayed) save writes no attributes', async (store) => {
    const fence = await startRun(store, 'run-1', T0)
    await upsert(store, fence, 0, { stage: 'first' })
    const replay = await applyOne(store, upsertOp(fence, 0, { stage: 'again', extra: 1 }), T0 + 2)
    assert.equal(replay.status, 'conflict', 'a completed checkpoint is not overwritten')
    same(await attributesOf(store, 'run-1'), { stage: 'first' }, 'attributes unchanged')
  })

  define(
    'a fenced save writes no attributes, even beside applied ops in its batch',
    async (store) => {
      const fence = await startRun(store, 'run-1', T0)
      const other = await startRun(store, 'run-2', T0 + 1)
      const stale = { runId: 'run-1', epoch: fence.epoch + 1 }
      const results = await apply(
        store,
        [upsertOp(stale, 0, { stage: 'stale' }), upsertOp(other, 0, { stage: 'ok' })],
        T0 + 2,
      )
      same(results[0], { status: 'fenced', current: { status: 'running', epoch: 1 } }, 'stale save')
      expectApplied(results[1], 'the other run')
      await finish(store, other, T0 + 3)
      const late = await applyOne(store, upsertOp(other, 1, { stage: 'late' }), T0 + 4)
      same(late, { status: 'fenced', current: { status: 'completed', epoch: 1 } }, 'after finish')
      same(await attributesOf(store, 'run-1'), {}, 'nothing for the fenced save')
      same(await attributesOf(store, 'run-2'), { stage: 'ok' }, 'only the applied save')
      same(await checkpoints(store, 'run-1'), [], 'no checkpoint either')
    },
  )

  define('invalid attributes in a save reject the whole batch, applying nothing', async (store) => {
    const fence = await startRun(store, 'run-1', T0)
    const bad: SearchAttributeUpsert[] = [
      { 'not a name': 1 },
      { n: Number.NaN },
      { d: new Date(Number.NaN) },
      { s: 'x'.repeat(257) },
      { o: {} as unknown as string },
    ]
    for (const attributes of bad) {
      await expectRejection(
        () =>
          store.applyBatch(
            [
              { type: 'saveCheckpoint', fence, checkpoint: checkpoint('run-1', 0) },
              upsertOp(fence, 1, attributes),
            ],
            T0 + 1,
          ),
        EXPECTED_INVALID,
        `saveCheckpoint with ${Object.keys(attributes).join()}`,
      )
    }
    same(await checkpoints(store, 'run-1'), [], 'no checkpoint applied')
    same(await attributesOf(store, 'run-1'), {}, 'no attribute')
  })

  define(
    'every operator on numbers, text (code point order), booleans and times',
    async (store) => {
      await numbered(store)
      const cases: Array<[SearchAttributeFilter, string[]]> = [
        [{ n: 3 }, ['n3']],
        [{ n: { eq: 3 } }, ['n3']],
        [{ n: { ne: 3 } }, ['n5', 'n4', 'n2', 'n1']],
        [{ n: { gt: 3 } }, ['n5', 'n4']],
        [{ n: { gte: 3 } }, ['n5', 'n4', 'n3']],
        [{ n: { lt: 3 } }, ['n2', 'n1']],
        [{ n: { lte: 3 } }, ['n3', 'n2', 'n1']],
        [{ n: { gt: 1.5, lte: 4 } }, ['n4', 'n3', 'n2']],
        [{ n: { gt: 4, lt: 2 } }, []],
        [{ label: 'v2' }, ['n2']],
        [{ label: { gt: 'v3' } }, ['n5', 'n4']],
        [{ label: { lte: 'v2' } }, ['n2', 'n1']],
        [{ label: { ne: 'v1' } }, ['n5', 'n4', 'n3', 'n2']],
        [{ odd: true }, ['n5', 'n3', 'n1']],
        [{ odd: { ne: true } }, ['n4', 'n2']],
        [{ odd: { lt: true } }, ['n4', 'n2']],
        [{ odd: false, n: { gt: 2 } }, ['n4']],
      ]
      for (const [filter, expected] of cases) {
        same(await matching(store, filter), expected, `filter ${JSON.stringify(filter)}`)
      }
      // Times: by instant.
      const times = [T0 - 1000, T0, T0 + 1000]
      for (const [i, at] of times.entries()) {
        const fence = await startRun(store, `t${i}`, T0 + 100 + i)
        await upsert(store, fence, 0, { at: new Date(at) })
      }
      same(await matching(store, { at: new Date(T0) }), ['t1'], 'time eq')
      same(await matching(store, { at: { gte: new Date(T0) } }), ['t2', 't1'], 'time gte')
      same(await matching(store, { at: { lt: new Date(T0) } }), ['t0'], 'time lt')
      same(await matching(store, { at: { ne: new Date(T0) } }), ['t2', 't0'], 'time ne')
      // Text orders by code point: B < a < é < U+FFFD < 😀.
      const words = ['B', 'a', '\u00e9', '\uFFFD', '\u{1F600}']
      for (const [i, word] of words.entries()) {
        const fence = await startRun(store, `w${i}`, T0 + 200 + i)
        await upsert(store, fence, 0, { word })
      }
      same(await matching(store, { word: { gt: '\u00e9' } }), ['w4', 'w3'], 'text above é')
      same(await matching(store, { word: { lt: 'a' } }), ['w0'], 'text below a')
    },
  )

  define('a filter matches only values of its own type; ne needs the attribute', async (store) => {
    const values: Array<[string, SearchAttributeUpsert]> = [
      ['number', { v: 1 }],
      ['text', { v: '1' }],
      ['bool', { v: true }],
      ['time', { v: new Date(1) }],
      ['none', { other: 1 }],
    ]
    for (const [i, [id, attributes]] of values.entries()) {
      const fence = await startRun(store, id, T0 + i)
      await upsert(store, fence, 0, attributes)
    }
    same(await matching(store, { v: 1 }), ['number'], 'number 1')
    same(await matching(store, { v: '1' }), ['text'], "text '1'")
    same(await matching(store, { v: true }), ['bool'], 'true')
    same(await matching(store, { v: new Date(1) }), ['time'], 'time 1 ms')
    same(await matching(store, { v: { gte: 0 } }), ['number'], 'number range')
    same(await matching(store, { v: { ne: 2 } }), ['number'], 'ne: same type only, present only')
    same(await matching(store, { v: { ne: 'x' } }), ['text'], 'ne on text')
    same(await matching(store, { nothing: { ne: 1 } }), [], 'ne on an attribute nobody has')
  })

  define('combines with workflow, status and parent filters', async (store) => {
    const a = await startRun(store, 'orders-a', T0)
    await upsert(store, a, 0, { tier: 'gold' })
    const b = await startRun(store, 'orders-b', T0 + 1)
    await upsert(store, b, 0, { tier: 'gold' })
    await finish(store, b, T0 + 2)
    const c = await startRun(store, 'billing-c', T0 + 3, { key: BILLING_V1 })
    await upsert(store, c, 0, { tier: 'gold' })
    const child = {
      ...newRun('orders-a/1', { createdAt: T0 + 4 }),
      parent: { runId: 'orders-a', seq: 1 },
    }
    expectApplied(
      await applyOne(
        store,
        { type: 'createRun', run: child, claim: { owner: 'x', leaseMs: 1000 } },
        T0 + 4,
      ),
      'child',
    )
    await upsert(store, { runId: 'orders-a/1', epoch: 1 }, 0, { tier: 'gold' })
    const gold = { tier: 'gold' }
    same(
      await matching(store, gold),
      ['orders-a/1', 'billing-c', 'orders-b', 'orders-a'],
      'all gold',
    )
    same(
      await matching(store, gold, { workflow: 'orders' }),
      ['orders-a/1', 'orders-b', 'orders-a'],
      'orders',
    )
    same(await matching(store, gold, { status: 'completed' }), ['orders-b'], 'completed')
    same(
      await matching(store, gold, { status: ['running'], workflow: 'billing' }),
      ['billing-c'],
      'billing running',
    )
    same(await matching(store, gold, { parentRunId: 'orders-a' }), ['orders-a/1'], 'children')
    same(await matching(store, { tier: 'silver' }, { workflow: 'orders' }), [], 'no silver')
  })

  define('pages a filtered listing with the cursor: no duplicate, no omission', async (store) => {
    const expected: string[] = []
    // Three runs per createdAt; every other run matches.
    for (let i = 0; i < 30; i++) {
      const id = `run-${String(i).padStart(2, '0')}`
      const fence = await startRun(store, id, T0 + Math.floor(i / 3))
      await upsert(store, fence, 0, { even: i % 2 === 0, i })
      if (i % 2 === 0) expected.unshift(id)
    }
    const query = { searchAttributes: { even: true, i: { gte: 0 } }, limit: 4 }
    const runs = await listAll(store, query)
    same(ids(runs), expected, 'the matching runs over all pages, newest first')
    const first = await list(store, query)
    assert.equal(first.runs.length, 4, 'a full first page')
    assert.notEqual(first.nextCursor, null, 'more pages')
  })

  define('malformed filters are refused with E_INVALID_ARGUMENT', async (store) => {
    const bad: unknown[] = [
      { 'bad name': 1 },
      { n: { between: 1 } },
      { n: {} },
      { n: Number.NaN },
      { n: { gt: null } },
      { n: [1] },
      Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`a${i}`, i])),
    ]
    for (const filter of bad) {
      await expectRejection(
        () => store.listRuns({ searchAttributes: filter as SearchAttributeFilter }),
        EXPECTED_INVALID,
        `listRuns with ${JSON.stringify(filter)}`,
      )
    }
  })

  define(
    'loadSearchAttributes: several runs at once; unknown ids and runs without are absent',
    async (store) => {
      const a = await startRun(store, 'run-a', T0)
      await startRun(store, 'run-b', T0 + 1)
      const c = await startRun(store, 'run-c', T0 + 2)
      await upsert(store, a, 0, { x: 1 })
      await upsert(store, c, 0, { x: 'c' })
      const found = await store.loadSearchAttributes(['run-a', 'run-b', 'run-c', 'nobody'])
      same(
        [...found.entries()].sort(),
        [
          ['run-a', { x: 1 }],
          ['run-c', { x: 'c' }],
        ],
        'found',
      )
      same(await store.loadSearchAttributes([]), new Map(), 'no ids')
    },
  )
}
