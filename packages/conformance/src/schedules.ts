/**
 * Schedules (putSchedule, getSchedule, listSchedules, deleteSchedule, claimDueSchedules,
 * advanceSchedule): a put creates a schedule at revision 1 or replaces one's spec and state
 * (revision + 1, its lease dropped, its counters and last run kept); ids list in code point
 * order; a claim leases the due, unpaused, unleased schedules of the claimer's workflows,
 * oldest due first, exactly once per lease under racing claimers, and tells when the next of
 * the rest is due; an advance applies only for the lease holder at the revision it read; a
 * malformed call writes nothing.
 */
import assert from 'node:assert/strict'
import type {
  ClaimSchedulesRequest,
  ScheduleAdvance,
  SchedulePut,
  ScheduleRecord,
  StateStore,
} from '@cairn/core/contracts'
import { LEASE_MS, OWNER_A, OWNER_B, T0 } from './fixtures.ts'
import { expectRejection, same, sameText, type Define } from './harness.ts'

/** The longest spec a store keeps (MAX_SCHEDULE_SPEC_LENGTH): 1 MiB of UTF-16 code units. */
const MAX_SPEC = 1_048_576

function put(id: string, extra: Partial<SchedulePut> = {}): SchedulePut {
  return {
    id,
    workflow: 'report',
    version: null,
    spec: JSON.stringify({ everyMs: 60_000, id }),
    paused: false,
    nextAt: T0,
    now: T0 - 1000,
    ...extra,
  }
}

/** The record a put creates. */
function created(p: SchedulePut): ScheduleRecord {
  return {
    id: p.id,
    workflow: p.workflow,
    version: p.version,
    spec: p.spec,
    paused: p.paused,
    nextAt: p.nextAt,
    lastWindow: p.lastWindow ?? null,
    lastRunId: null,
    bufferedWindow: null,
    fired: 0,
    skipped: 0,
    revision: 1,
    createdAt: p.now,
    updatedAt: p.now,
    leaseOwner: null,
    leaseUntil: null,
  }
}

function claimAt(
  store: StateStore,
  now: number,
  extra: Partial<ClaimSchedulesRequest> = {},
): ReturnType<StateStore['claimDueSchedules']> {
  return store.claimDueSchedules({
    now,
    owner: OWNER_A,
    leaseMs: LEASE_MS,
    limit: 100,
    workflows: ['report'],
    ...extra,
  })
}

function advance(id: string, extra: Partial<ScheduleAdvance> = {}): ScheduleAdvance {
  return {
    id,
    owner: OWNER_A,
    revision: 1,
    nextAt: T0 + 60_000,
    lastWindow: T0,
    lastRunId: `sch:${id}:${new Date(T0).toISOString()}`,
    bufferedWindow: null,
    fired: 1,
    skipped: 0,
    now: T0 + 10,
    ...extra,
  }
}

function ids(records: readonly ScheduleRecord[]): string[] {
  return records.map((r) => r.id)
}

async function mustGet(store: StateStore, id: string): Promise<ScheduleRecord> {
  const record = await store.getSchedule(id)
  assert.ok(record !== null, `schedule ${id} must exist`)
  return record
}

/** A spec of exactly `length` code units, non-ASCII and JSON escapes included. */
function bigSpec(length: number): string {
  const head = '{"input":"'
  const tail = '"}'
  const unit = 'é😀 \\"q\\" \\n ü€ ' // 16 code units, no pair split at a unit's end
  const body = unit.repeat(Math.floor((length - head.length - tail.length) / unit.length))
  return head + body + 'x'.repeat(length - head.length - tail.length - body.length) + tail
}

export function scheduleTests(define: Define): void {
  define('a put creates a schedule at revision 1; get and list return it as put', async (store) => {
    const first = put('nightly', { spec: '{"cron":"0 2 * * *","tz":"Europe/Paris"}' })
    same(await store.putSchedule(first), created(first), 'the created record')
    same(await store.getSchedule('nightly'), created(first), 'read back')
    const second = put('hourly', { version: 'v2', paused: true, nextAt: null, lastWindow: T0 - 5 })
    same(await store.putSchedule(second), created(second), 'with a version and a last window')
    same(
      await store.listSchedules({ limit: 10 }),
      [created(second), created(first)],
      'listed by id',
    )
    assert.equal(await store.getSchedule('weekly'), null, 'an unknown id is null')
    const empty = put('__proto__', { spec: '' })
    same(await store.putSchedule(empty), created(empty), "an empty spec; '__proto__' as an id")
    same(await store.getSchedule('__proto__'), created(empty), 'read back')
  })

  define('a spec of 1 MiB round-trips byte for byte; a longer one is refused', async (store) => {
    const spec = bigSpec(MAX_SPEC)
    assert.equal(spec.length, MAX_SPEC)
    const record = await store.putSchedule(put('big', { spec }))
    sameText(record?.spec, spec, 'as the put returns it')
    sameText((await mustGet(store, 'big')).spec, spec, 'as get returns it')
    sameText((await store.listSchedules({ limit: 1 }))[0]?.spec, spec, 'as list returns it')
    const { claimed } = await claimAt(store, T0)
    sameText(claimed[0]?.spec, spec, 'as a claim returns it')
    await expectRejection(
      () => store.putSchedule(put('bigger', { spec: `${spec} ` })),
      'E_INVALID_ARGUMENT',
      'a spec of 1 MiB + 1',
    )
    assert.equal(await store.getSchedule('bigger'), null, 'not written')
  })

  define(
    'a put with ifRevision writes only over that revision, and creates nothing',
    async (store) => {
      const first = await store.putSchedule(put('s', { nextAt: T0 + 1 }))
      same(first?.revision, 1, 'created')
      const stale = await store.putSchedule(put('s', { paused: true, ifRevision: 7, now: T0 + 2 }))
      same(stale, null, 'another revision: nothing written')
      same((await mustGet(store, 's')).paused, false, 'unchanged')
      const applied = await store.putSchedule(
        put('s', { paused: true, ifRevision: 1, now: T0 + 3 }),
      )
      same([applied?.revision, applied?.paused, applied?.updatedAt], [2, true, T0 + 3], 'applied')
      const moved = await store.putSchedule(
        put('s', { lastWindow: T0 + 5, ifRevision: 2, now: T0 + 6 }),
      )
      same([moved?.revision, moved?.lastWindow], [3, T0 + 5], 'lastWindow replaced as given')
      same(await store.putSchedule(put('gone', { ifRevision: 1 })), null, 'absent: nothing created')
      same(await store.getSchedule('gone'), null, 'not created')
      await expectRejection(
        () => store.putSchedule(put('s', { ifRevision: 0 })),
        'E_INVALID_ARGUMENT',
        'ifRevision 0',
      )
    },
  )

  define('ids list in code point order, paged after an id', async (store) => {
    // UTF-16 order puts the astral '😀' (D83D …) before U+E000; code point order after it.
    const all = ['😀', '\uE000', 'é', 'b', 'a b', 'a', 'B', 'A']
    for (const id of all) await store.putSchedule(put(id))
    const order = ['A', 'B', 'a', 'a b', 'b', 'é', '\uE000', '😀']
    same(ids(await store.listSchedules({ limit: 100 })), order, 'every id, by code point')
    same(ids(await store.listSchedules({ limit: 3 })), order.slice(0, 3), 'the first page')
    same(ids(await store.listSchedules({ after: 'a', limit: 2 })), ['a b', 'b'], 'after an id')
    same(ids(await store.listSchedules({ after: 'c', limit: 100 })), order.slice(5), 'after a gap')
    same(ids(await store.listSchedules({ after: '\uE000', limit: 100 })), ['😀'], 'astral last')
    same(await store.listSchedules({ after: '😀', limit: 100 }), [], 'nothing after the last')
    same(ids(await store.listSchedules({ after: '', limit: 1 })), ['A'], "after '': the first")
    same((await mustGet(store, 'a')).id, 'a', "'a' and 'A' are two schedules")
  })

  define(
    'a put on an existing id replaces spec and state, bumps the revision, keeps counters and the last run',
    async (store) => {
      await store.putSchedule(put('s', { lastWindow: T0 - 60_000 }))
      await claimAt(store, T0)
      const fired = advance('s', { bufferedWindow: T0 + 30_000, fired: 2, skipped: 3 })
      assert.equal(await store.advanceSchedule(fired), 'applied')
      await claimAt(store, fired.nextAt as number) // leased again: the put drops the lease
      const update = put('s', {
        workflow: 'billing',
        version: 'v7',
        spec: '{"cron":"*/5 * * * *"}',
        paused: true,
        nextAt: null,
        now: T0 + 100_000,
      })
      const kept = {
        lastWindow: fired.lastWindow,
        lastRunId: fired.lastRunId,
        bufferedWindow: fired.bufferedWindow,
        fired: 2,
        skipped: 3,
        createdAt: T0 - 1000,
      }
      const second: ScheduleRecord = { ...created(update), ...kept, revision: 2 }
      same(await store.putSchedule(update), second, 'replaced, the firing state kept')
      same(await store.getSchedule('s'), second, 'as stored')
      const third = put('s', { nextAt: T0 + 200_000, lastWindow: T0 + 150_000, now: T0 + 150_000 })
      same(
        await store.putSchedule(third),
        { ...created(third), ...kept, lastWindow: T0 + 150_000, bufferedWindow: null, revision: 3 },
        'a put with lastWindow replaces it and drops the buffered window',
      )
      const fourth = put('s', { lastWindow: null, now: T0 + 160_000 })
      same(
        await store.putSchedule(fourth),
        { ...created(fourth), ...kept, lastWindow: null, bufferedWindow: null, revision: 4 },
        'lastWindow null is a value too',
      )
      same(ids(await store.listSchedules({ limit: 10 })), ['s'], 'still one schedule')
    },
  )

  define(
    'a claim takes the due, unpaused, unleased schedules of its workflows, oldest due first, then by id',
    async (store) => {
      await store.putSchedule(put('late', { nextAt: T0 + 100 }))
      await store.putSchedule(put('😀', { nextAt: T0 + 50 }))
      await store.putSchedule(put('\uE000', { nextAt: T0 + 50 }))
      await store.putSchedule(put('early', { nextAt: T0 + 10 }))
      await store.putSchedule(put('paused', { nextAt: T0, paused: true }))
      await store.putSchedule(put('later', { nextAt: T0 + 5000 }))
      await store.putSchedule(put('ended', { nextAt: null }))
      await store.putSchedule(put('billing', { workflow: 'billing', nextAt: T0 + 1 }))
      await store.putSchedule(put('at-now', { nextAt: T0 + 1000 }))
      same(await claimAt(store, T0 + 9), { claimed: [], nextAt: T0 + 10 }, 'none due yet')
      const { claimed, nextAt } = await claimAt(store, T0 + 1000)
      same(
        ids(claimed),
        ['early', '\uE000', '😀', 'late', 'at-now'],
        'due ones (nextAt <= now), by nextAt, ties by code point',
      )
      for (const record of claimed)
        same(
          record,
          { ...(await mustGet(store, record.id)), leaseOwner: OWNER_A },
          `${record.id} as leased`,
        )
      same(
        claimed.map((r) => [r.leaseOwner, r.leaseUntil]),
        claimed.map(() => [OWNER_A, T0 + 1000 + LEASE_MS]),
        'leased to the claimer until now + leaseMs',
      )
      assert.equal(nextAt, T0 + 5000, "the rest's next: not the paused one, not billing's")
      same(
        await claimAt(store, T0 + 1000, { owner: OWNER_B }),
        { claimed: [], nextAt: T0 + 10 },
        'all leased; the leased ones count at their nextAt',
      )
      const billing = await claimAt(store, T0 + 1000, { workflows: ['billing', 'nothing'] })
      same(ids(billing.claimed), ['billing'], "another workflow's")
      assert.equal(billing.nextAt, null, 'nothing else of those workflows')
      same(
        await claimAt(store, T0 + 1000, { workflows: ['nothing'] }),
        { claimed: [], nextAt: null },
        'a workflow without schedules',
      )
      same(
        (await mustGet(store, 'paused')).leaseOwner,
        null,
        'a paused one is never claimed, even due',
      )
    },
  )

  define('a claim takes at most `limit`; nextAt tells of a due one left', async (store) => {
    for (let i = 0; i < 5; i++) await store.putSchedule(put(`s${i}`, { nextAt: T0 + (5 - i) }))
    const first = await claimAt(store, T0 + 10, { limit: 2 })
    same(ids(first.claimed), ['s4', 's3'], 'the two oldest due')
    assert.equal(first.nextAt, T0 + 3, 'a due one is left: ask again at once')
    const second = await claimAt(store, T0 + 10, { limit: 10 })
    same(ids(second.claimed), ['s2', 's1', 's0'], 'then the rest')
    assert.equal(second.nextAt, T0 + 1, 'the leased ones count at their nextAt')
    await store.putSchedule(put('s4', { nextAt: T0 + 500 }))
    const third = await claimAt(store, T0 + 10, { limit: 1 })
    same(third, { claimed: [], nextAt: T0 + 2 }, 'a put freed s4, now not due')
  })

  define('a lapsed lease is taken over; a live one is not', async (store) => {
    await store.putSchedule(put('s', { nextAt: T0 }))
    same(ids((await claimAt(store, T0)).claimed), ['s'], 'claimed by A')
    const live = await claimAt(store, T0 + LEASE_MS - 1, { owner: OWNER_B })
    same(live, { claimed: [], nextAt: T0 }, "A's lease is live")
    const takeover = await claimAt(store, T0 + LEASE_MS, { owner: OWNER_B })
    same(
      takeover.claimed.map((r) => [r.id, r.leaseOwner, r.leaseUntil]),
      [['s', OWNER_B, T0 + 2 * LEASE_MS]],
      'lapsed at leaseUntil: B takes it over',
    )
    assert.equal(takeover.nextAt, null, 'nothing else')
    assert.equal(
      await store.advanceSchedule(advance('s', { now: T0 + LEASE_MS + 1 })),
      'stale',
      "A's advance after the takeover",
    )
    same((await mustGet(store, 's')).leaseOwner, OWNER_B, 'B keeps it')
    assert.equal(await store.advanceSchedule(advance('s', { owner: OWNER_B })), 'applied')
  })

  define('racing claims hand each schedule to one claimer', async (store) => {
    for (let i = 0; i < 12; i++) await store.putSchedule(put(`s${i}`, { nextAt: T0 + i }))
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        claimAt(store, T0 + 100, { owner: `engine-${i}`, limit: 5 }),
      ),
    )
    const all = results.flatMap((r) => ids(r.claimed)).sort()
    same(all, Array.from({ length: 12 }, (_, i) => `s${i}`).sort(), 'each exactly once')
    for (const [i, r] of results.entries())
      for (const record of r.claimed)
        assert.equal((await mustGet(store, record.id)).leaseOwner, `engine-${i}`, record.id)
  })

  define(
    'an advance by the lease holder at the revision applies: state replaced, counters added, lease released',
    async (store) => {
      const p = put('s', { nextAt: T0 })
      await store.putSchedule(p)
      await claimAt(store, T0)
      const one = advance('s', { fired: 1, skipped: 2, bufferedWindow: T0 + 5 })
      assert.equal(await store.advanceSchedule(one), 'applied')
      const after: ScheduleRecord = {
        ...created(p),
        nextAt: one.nextAt,
        lastWindow: one.lastWindow,
        lastRunId: one.lastRunId,
        bufferedWindow: one.bufferedWindow,
        fired: 1,
        skipped: 2,
        updatedAt: one.now,
      }
      same(await store.getSchedule('s'), after, 'as written; the lease released')
      assert.equal(await store.advanceSchedule(one), 'stale', 'once: the lease is gone')
      same(await store.getSchedule('s'), after, 'the second wrote nothing')
      await claimAt(store, T0 + 60_000)
      const two = advance('s', {
        nextAt: null,
        lastWindow: T0 + 60_000,
        lastRunId: null,
        fired: 3,
        skipped: 0,
        now: T0 + 60_001,
      })
      assert.equal(await store.advanceSchedule(two), 'applied')
      same(
        await store.getSchedule('s'),
        {
          ...after,
          ...{ nextAt: null, lastWindow: T0 + 60_000, lastRunId: null, bufferedWindow: null },
          ...{ fired: 4, skipped: 2, updatedAt: T0 + 60_001 },
        },
        'counters add up (fired 1 + 3, skipped 2 + 0); nulls replace',
      )
    },
  )

  define('an advance is stale for another owner, after a put, after a delete', async (store) => {
    await store.putSchedule(put('s', { nextAt: T0 }))
    await claimAt(store, T0)
    const before = await mustGet(store, 's')
    assert.equal(await store.advanceSchedule(advance('s', { owner: OWNER_B })), 'stale', 'B')
    assert.equal(await store.advanceSchedule(advance('s', { revision: 2 })), 'stale', 'revision 2')
    same(await store.getSchedule('s'), before, 'nothing written')
    await store.putSchedule(put('s', { nextAt: T0, now: T0 + 1 }))
    assert.equal(await store.advanceSchedule(advance('s')), 'stale', 'a put dropped the lease')
    assert.equal(await store.advanceSchedule(advance('s', { revision: 2 })), 'stale', 'unleased')
    same(ids((await claimAt(store, T0 + 2)).claimed), ['s'], 'claimed again at revision 2')
    assert.equal(
      await store.advanceSchedule(advance('s', { revision: 1 })),
      'stale',
      'leased, but computed from revision 1',
    )
    assert.equal((await mustGet(store, 's')).fired, 0, 'nothing written')
    assert.equal(await store.advanceSchedule(advance('s', { revision: 2 })), 'applied')
    await claimAt(store, T0 + 60_000)
    assert.equal(await store.deleteSchedule('s'), true)
    assert.equal(
      await store.advanceSchedule(advance('s', { revision: 2 })),
      'stale',
      'after a delete',
    )
    assert.equal(await store.getSchedule('s'), null, 'the advance did not bring it back')
  })

  define('a delete is true once, then false; the schedule is gone everywhere', async (store) => {
    await store.putSchedule(put('a', { nextAt: T0 }))
    await store.putSchedule(put('b', { nextAt: T0 + 1 }))
    assert.equal(await store.deleteSchedule('a'), true)
    assert.equal(await store.deleteSchedule('a'), false, 'once')
    assert.equal(await store.deleteSchedule('never'), false, 'an unknown id')
    assert.equal(await store.getSchedule('a'), null)
    same(ids(await store.listSchedules({ limit: 10 })), ['b'], 'listed no more')
    same(ids((await claimAt(store, T0 + 10)).claimed), ['b'], 'claimed no more')
    const again = put('a', { nextAt: T0, now: T0 + 20 })
    same(await store.putSchedule(again), created(again), 'a put after a delete creates anew')
  })

  define(
    'malformed calls are refused with E_INVALID_ARGUMENT; nothing is written',
    async (store) => {
      const ok = put('kept', { nextAt: T0 })
      await store.putSchedule(ok)
      const badPuts: Array<[string, unknown]> = [
        ['empty id', put('')],
        ['id too long', put('x'.repeat(256))],
        ['id with a control character', put('a\u0007b')],
        ['id with a lone surrogate', put('a\uD800')],
        ['id starting with a space', put(' kept')],
        ['id a number', { ...ok, id: 5 }],
        ['empty workflow', { ...ok, workflow: '' }],
        ['empty version', { ...ok, version: '' }],
        ['version undefined', { ...ok, version: undefined }],
        ['spec a number', { ...ok, spec: 5 }],
        ['spec null', { ...ok, spec: null }],
        ['paused 1', { ...ok, paused: 1 }],
        ['paused missing', { ...ok, paused: undefined }],
        ['nextAt NaN', { ...ok, nextAt: Number.NaN }],
        ['nextAt negative', { ...ok, nextAt: -1 }],
        ['nextAt fractional', { ...ok, nextAt: T0 + 0.5 }],
        ['nextAt a string', { ...ok, nextAt: String(T0) }],
        ['nextAt past the time range', { ...ok, nextAt: 8_640_000_000_000_001 }],
        ['lastWindow NaN', { ...ok, lastWindow: Number.NaN }],
        ['lastWindow negative', { ...ok, lastWindow: -1 }],
        ['now NaN', { ...ok, now: Number.NaN }],
        ['now fractional', { ...ok, now: 1.5 }],
        ['now missing', { ...ok, now: undefined }],
        ['null', null],
        ['a string', 'kept'],
        ['an array', [ok]],
      ]
      for (const [what, value] of badPuts)
        await expectRejection(
          () => store.putSchedule(value as never),
          'E_INVALID_ARGUMENT',
          `put: ${what}`,
        )
      same(await store.listSchedules({ limit: 100 }), [created(ok)], 'no put wrote anything')
      const withProto = JSON.parse(
        JSON.stringify(put('proto', { nextAt: T0 + 1 })).replace('{', '{"__proto__":1,'),
      ) as SchedulePut
      assert.equal(Object.hasOwn(withProto, '__proto__'), true, 'an own __proto__ key')
      same(
        (await store.putSchedule(withProto))?.id,
        'proto',
        'an own __proto__ key is one more field, ignored',
      )
      assert.equal(await store.deleteSchedule('proto'), true)

      for (const id of ['', 5, null, undefined, 'x'.repeat(256)]) {
        await expectRejection(
          () => store.getSchedule(id as never),
          'E_INVALID_ARGUMENT',
          `get ${String(id)}`,
        )
        await expectRejection(
          () => store.deleteSchedule(id as never),
          'E_INVALID_ARGUMENT',
          `delete ${String(id)}`,
        )
      }
      const badLists: unknown[] = [
        { limit: 0 },
        { limit: 1001 },
        { limit: 1.5 },
        { limit: Number.NaN },
        { limit: '10' },
        {},
        { limit: 10, after: 5 },
        { limit: 10, after: null },
        null,
        10,
      ]
      for (const query of badLists)
        await expectRejection(
          () => store.listSchedules(query as never),
          'E_INVALID_ARGUMENT',
          `list ${JSON.stringify(query)}`,
        )

      const claim: ClaimSchedulesRequest = {
        now: T0,
        owner: OWNER_A,
        leaseMs: LEASE_MS,
        limit: 10,
        workflows: ['report'],
      }
      const badClaims: unknown[] = [
        { ...claim, limit: 0 },
        { ...claim, limit: 1001 },
        { ...claim, limit: 2.5 },
        { ...claim, owner: '' },
        { ...claim, owner: 7 },
        { ...claim, leaseMs: 0 },
        { ...claim, leaseMs: 1.5 },
        { ...claim, leaseMs: -1 },
        { ...claim, now: Number.NaN },
        { ...claim, now: -1 },
        { ...claim, now: T0 + 0.5 },
        { ...claim, workflows: [] },
        { ...claim, workflows: [''] },
        { ...claim, workflows: ['report', 5] },
        { ...claim, workflows: 'report' },
        { ...claim, workflows: Array.from({ length: 1001 }, (_, i) => `w${i}`) },
        { ...claim, now: 8_640_000_000_000_000 }, // the lease end past any time
        { ...claim, workflows: undefined },
        null,
        'report',
      ]
      for (const request of badClaims)
        await expectRejection(
          () => store.claimDueSchedules(request as never),
          'E_INVALID_ARGUMENT',
          `claim ${JSON.stringify(request)?.slice(0, 120)}`,
        )
      same(await store.getSchedule('kept'), created(ok), 'no claim leased it')

      same(ids((await store.claimDueSchedules(claim)).claimed), ['kept'], 'a good claim does')
      const leased = await mustGet(store, 'kept')
      const good = advance('kept')
      const badAdvances: unknown[] = [
        { ...good, id: '' },
        { ...good, owner: '' },
        { ...good, revision: 0 },
        { ...good, revision: 1.5 },
        { ...good, revision: '1' },
        { ...good, nextAt: -1 },
        { ...good, nextAt: Number.NaN },
        { ...good, nextAt: undefined },
        { ...good, lastWindow: 0.5 },
        { ...good, bufferedWindow: Number.POSITIVE_INFINITY },
        { ...good, lastRunId: '' },
        { ...good, lastRunId: 5 },
        { ...good, fired: -1 },
        { ...good, fired: 1.5 },
        { ...good, skipped: Number.NaN },
        { ...good, skipped: undefined },
        { ...good, now: -1 },
        null,
        [good],
      ]
      for (const value of badAdvances)
        await expectRejection(
          () => store.advanceSchedule(value as never),
          'E_INVALID_ARGUMENT',
          `advance ${JSON.stringify(value)}`,
        )
      same(await store.getSchedule('kept'), leased, 'no advance wrote anything')
      assert.equal(await store.advanceSchedule(good), 'applied', 'the good one applies')
    },
  )
}
