/**
 * Run tags and origin (migration 7 in the SQL stores): stored as given at creation, read back
 * on every record, and the listRuns filters `tag` and `originRunId` with keyset pagination.
 */
import assert from 'node:assert/strict'
import type { ListRunsQuery, NewRun, RunOrigin, RunRecord, StateStore } from '@cairn/core/contracts'
import { BILLING_V1, T0, createdRecord, newRun } from './fixtures.ts'
import { expectRejection, same, type Define } from './harness.ts'
import { apply, applyOne, finish, ids, list, mustGetRun, startRun } from './store_calls.ts'

function tagged(id: string, tags: readonly string[], createdAt = T0, origin?: RunOrigin): NewRun {
  return { ...newRun(id, { createdAt }), tags, ...(origin ? { origin } : {}) }
}

async function create(store: StateStore, run: NewRun): Promise<RunRecord> {
  same(
    await applyOne(store, { type: 'createRun', run }, run.createdAt),
    { status: 'applied', epoch: 0 },
    `createRun ${run.id}`,
  )
  return mustGetRun(store, run.id)
}

async function listAll(store: StateStore, query: ListRunsQuery): Promise<string[]> {
  const found: string[] = []
  let cursor: string | undefined
  for (let pages = 0; pages < 100; pages++) {
    const page = await list(store, cursor === undefined ? query : { ...query, cursor })
    found.push(...ids(page.runs))
    if (page.nextCursor === null) return found
    cursor = page.nextCursor
  }
  assert.fail('listRuns keeps returning cursors: pagination does not end')
}

export function runTagTests(define: Define): void {
  define(
    'tags are stored in the order given, [] when none; origin null when none',
    async (store) => {
      const run = tagged('run-t', ['zeta', 'alpha', 'é'])
      same(await create(store, run), createdRecord(run, T0), 'the tagged run')
      const plain = await create(store, newRun('run-plain', { createdAt: T0 }))
      same([plain.tags, plain.origin], [[], null], 'tags and origin of an untagged run')
      const empty = await create(store, tagged('run-empty', []))
      same(empty.tags, [], 'tags: [] given')
    },
  )

  define('origin is stored as given, for a retry and for a fork', async (store) => {
    const retry = { kind: 'retry', runId: 'source', fromSeq: null } as const
    const fork = { kind: 'fork', runId: 'source', fromSeq: 3 } as const
    same((await create(store, tagged('r', [], T0, retry))).origin, retry, 'retry origin')
    same((await create(store, tagged('f', ['x'], T0, fork))).origin, fork, 'fork origin')
  })

  define('a create meeting an existing id changes neither tags nor origin', async (store) => {
    const first = await create(store, tagged('run-1', ['a']))
    const again = tagged('run-1', ['b', 'c'], T0, { kind: 'retry', runId: 'x', fromSeq: null })
    same(
      await applyOne(store, { type: 'createRun', run: again }, T0 + 5),
      { status: 'exists', run: first },
      'second create',
    )
    same(await mustGetRun(store, 'run-1'), first, 'stored run')
    same(await listAll(store, { tag: 'b' }), [], 'no tag row for the refused create')
  })

  define('tag of a claimed create is stored too', async (store) => {
    const run = tagged('claimed', ['hot'])
    const claim = { owner: 'engine-a', leaseMs: 1_000 }
    same(
      await applyOne(store, { type: 'createRun', run, claim }, T0),
      { status: 'applied', epoch: 1 },
      'create',
    )
    same((await mustGetRun(store, 'claimed')).tags, ['hot'], 'tags')
    same(await listAll(store, { tag: 'hot' }), ['claimed'], 'listed by tag')
  })

  define(
    'listRuns({ tag }) lists the runs carrying it, newest first, page by page',
    async (store) => {
      // Several runs share a createdAt: the cursor must neither repeat nor skip one.
      const times = [T0, T0 + 1, T0 + 1, T0 + 1, T0 + 2, T0 + 3]
      for (const [i, at] of times.entries()) {
        await create(store, tagged(`t-${i}`, i % 2 === 0 ? ['blue', 'big'] : ['blue'], at))
      }
      await create(store, tagged('other', ['red'], T0 + 4))
      const blue = ['t-5', 't-4', 't-3', 't-2', 't-1', 't-0']
      same(ids((await list(store, { tag: 'blue' })).runs), blue, 'one page')
      same(await listAll(store, { tag: 'blue', limit: 1 }), blue, 'one run per page')
      same(await listAll(store, { tag: 'blue', limit: 4 }), blue, 'four runs per page')
      same(await listAll(store, { tag: 'big', limit: 2 }), ['t-4', 't-2', 't-0'], 'another tag')
      same(await listAll(store, { tag: 'none' }), [], 'a tag no run carries')
      const page = await list(store, { tag: 'blue' })
      same(page.runs[0], await mustGetRun(store, 't-5'), 'full records')
    },
  )

  define('tags compare exactly: case, accents and trailing spaces matter', async (store) => {
    await create(store, tagged('plain', ['a']))
    await create(store, tagged('spaced', ['a ']))
    await create(store, tagged('upper', ['A']))
    await create(store, tagged('accent', ['\u00e9']))
    await create(store, tagged('combining', ['e\u0301']))
    same(await listAll(store, { tag: 'a' }), ['plain'], "tag 'a'")
    same(await listAll(store, { tag: 'a ' }), ['spaced'], "tag 'a '")
    same(await listAll(store, { tag: '\u00e9' }), ['accent'], 'precomposed é')
    same(await listAll(store, { tag: 'e\u0301' }), ['combining'], 'e + combining accent')
  })

  define('a 64-character tag of 4-byte characters is kept whole', async (store) => {
    const long = '\u{1F600}'.repeat(64)
    same(
      (await create(store, tagged('emoji', [long, 'x'.repeat(64)]))).tags,
      [long, 'x'.repeat(64)],
      'tags',
    )
    same(await listAll(store, { tag: long }), ['emoji'], 'listed by the long tag')
  })

  define('the tag filter combines with workflow and status', async (store) => {
    const billing = {
      ...tagged('billing', ['vip'], T0),
      workflow: BILLING_V1.workflow,
      version: BILLING_V1.version,
    }
    await create(store, billing)
    await create(store, tagged('pending', ['vip'], T0 + 1))
    const done = { runId: 'done', epoch: 1 }
    const claim = { owner: 'engine-a', leaseMs: 1_000 }
    await apply(store, [{ type: 'createRun', run: tagged('done', ['vip'], T0 + 2), claim }], T0 + 2)
    await finish(store, done, T0 + 3)
    await startRun(store, 'untagged', T0 + 4)
    same(
      await listAll(store, { tag: 'vip', workflow: 'orders' }),
      ['done', 'pending'],
      'tag and workflow',
    )
    same(await listAll(store, { tag: 'vip', status: 'completed' }), ['done'], 'tag and status')
    same(
      await listAll(store, { tag: 'vip', status: ['pending', 'running'] }),
      ['pending', 'billing'],
      'tag and statuses',
    )
  })

  define('listRuns({ originRunId }) lists the runs made from that run', async (store) => {
    await create(store, newRun('source', { createdAt: T0 }))
    const retry = { kind: 'retry', runId: 'source', fromSeq: null } as const
    const fork = { kind: 'fork', runId: 'source', fromSeq: 1 } as const
    await create(store, tagged('retry-1', [], T0 + 1, retry))
    await create(store, tagged('fork-1', ['x'], T0 + 2, fork))
    await create(store, tagged('fork-1b', [], T0 + 2, fork))
    await create(store, tagged('elsewhere', [], T0 + 3, { ...retry, runId: 'other' }))
    const made = ['fork-1b', 'fork-1', 'retry-1']
    same(await listAll(store, { originRunId: 'source' }), made, 'runs made from source')
    same(await listAll(store, { originRunId: 'source', limit: 1 }), made, 'one per page')
    same(await listAll(store, { originRunId: 'source', tag: 'x' }), ['fork-1'], 'with a tag')
    same(await listAll(store, { originRunId: 'retry-1' }), [], 'none made from a retry')
  })

  define(
    'malformed tags are refused with E_INVALID_ARGUMENT, the batch applying nothing',
    async (store) => {
      const bad: unknown[] = [
        Array.from({ length: 21 }, (_, i) => `t${i}`),
        [''],
        ['x'.repeat(65)],
        ['line\nbreak'],
        ['nul\u0000'],
        ['del\u007f'],
        ['dup', 'dup'],
        [42],
        ['\ud800'],
        'not-an-array',
      ]
      for (const [i, tags] of bad.entries()) {
        const run = { ...newRun(`bad-${i}`, { createdAt: T0 }), tags } as NewRun
        await expectRejection(
          () =>
            store.applyBatch(
              [
                { type: 'createRun', run: newRun(`ok-${i}`) },
                { type: 'createRun', run },
              ],
              T0,
            ),
          'E_INVALID_ARGUMENT',
          `tags ${JSON.stringify(tags)}`,
        )
        same(
          [await store.getRun(`ok-${i}`), await store.getRun(`bad-${i}`)],
          [null, null],
          `nothing applied for ${i}`,
        )
      }
      const most = Array.from({ length: 20 }, (_, i) => `t${i}`)
      same((await create(store, tagged('twenty', most))).tags, most, '20 tags are fine')
    },
  )

  define('a tag or originRunId filter that is not a string is refused', async (store) => {
    await create(store, tagged('run-1', ['1']))
    for (const query of [{ tag: 1 }, { originRunId: null }, { tag: ['1'] }]) {
      await expectRejection(
        () => store.listRuns(query as unknown as ListRunsQuery),
        'E_INVALID_ARGUMENT',
        `listRuns(${JSON.stringify(query)})`,
      )
    }
  })

  define('a malformed origin is refused with E_INVALID_ARGUMENT', async (store) => {
    const bad: unknown[] = [
      { kind: 'copy', runId: 's', fromSeq: null },
      { kind: 'retry', runId: '', fromSeq: null },
      { kind: 'retry', runId: 's', fromSeq: 2 },
      { kind: 'fork', runId: 's', fromSeq: null },
      { kind: 'fork', runId: 's', fromSeq: -1 },
      { kind: 'fork', runId: 's', fromSeq: 1.5 },
    ]
    for (const [i, origin] of bad.entries()) {
      const run = { ...newRun(`bad-${i}`), origin } as NewRun
      await expectRejection(
        () => store.applyBatch([{ type: 'createRun', run }], T0),
        'E_INVALID_ARGUMENT',
        `origin ${JSON.stringify(origin)}`,
      )
      same(await store.getRun(`bad-${i}`), null, `nothing applied for ${i}`)
    }
  })
}
