/**
 * Step logs (contracts/step_logs.ts): appends merge into one record per position — once per
 * entry number and execution, gaps and the cap counted as dropped, the newest progress kept —
 * live through appendStepLogs (skipped for unknown runs) or with a saveCheckpoint that
 * applies; read back by loadStepLogs; deleted with the run.
 */
import assert from 'node:assert/strict'
import type {
  Fence,
  StateStore,
  StepLogAppend,
  StepLogEntry,
  StepLogRecord,
  StepProgressRecord,
  StoreOp,
} from '@cairn/core/contracts'
import { checkpoint, T0 } from './fixtures.ts'
import { expectRejection, same, sameText, type Define } from './harness.ts'
import { applyOne, expectApplied, finish, save, startRun } from './store_calls.ts'

const INVALID = 'E_INVALID_ARGUMENT'

function entry(i: number, changes: Partial<StepLogEntry> = {}): StepLogEntry {
  return { i, at: T0 + i, level: 'info', attempt: 1, message: `line ${i}`, ...changes }
}

function entries(from: number, to: number): StepLogEntry[] {
  return Array.from({ length: to - from + 1 }, (_, k) => entry(from + k))
}

function progress(p: number, done: number, total = 10): StepProgressRecord {
  return { p, at: T0 + p, attempt: 1, fraction: done / total, done, total }
}

function append(
  runId: string,
  seq: number,
  execution: string,
  lines: StepLogEntry[],
  extra: Partial<StepLogAppend> = {},
): StepLogAppend {
  return { runId, seq, execution, entries: lines, maxEntries: 100, ...extra }
}

async function logsOf(store: StateStore, runId: string, fromSeq = 0): Promise<StepLogRecord[]> {
  const records = await store.loadStepLogs(runId, { fromSeq, limit: 1000 })
  assert.ok(Array.isArray(records), 'loadStepLogs must resolve to an array')
  return records
}

async function only(store: StateStore, runId: string, seq: number): Promise<StepLogRecord> {
  const record = (await logsOf(store, runId)).find((r) => r.seq === seq)
  if (record === undefined) assert.fail(`no step log record at ${runId}#${seq}`)
  return record
}

function messages(record: StepLogRecord): string[] {
  return record.entries.map((e) => e.message)
}

function saveWithLogs(fence: Fence, seq: number, logs: StepLogAppend, status = 'completed') {
  const changes = status === 'retrying' ? { status: 'retrying' as const, order: null } : {}
  const op: StoreOp = {
    type: 'saveCheckpoint',
    fence,
    checkpoint: checkpoint(fence.runId, seq, changes),
    logs,
  }
  return op
}

export function stepLogTests(define: Define): void {
  define('an append creates the position’s record, read back as written', async (store) => {
    await startRun(store, 'run-1')
    const lines = [
      entry(0),
      entry(1, { level: 'warn', fields: '{"sku":"A-1","qty":2}' }),
      entry(2, { level: 'error', attempt: 1, message: 'x'.repeat(10), truncated: true }),
    ]
    const merged = await store.appendStepLogs(
      [append('run-1', 3, 'e1a1', lines, { progress: progress(0, 4), name: 'pack' })],
      T0 + 50,
    )
    assert.equal(merged, 1, 'one append merged')
    same(
      await logsOf(store, 'run-1'),
      [
        {
          runId: 'run-1',
          seq: 3,
          name: 'pack',
          entries: lines,
          dropped: 0,
          progress: progress(0, 4),
          updatedAt: T0 + 50,
        },
      ],
      'the record',
    )
  })

  define('the name is the newest one given; an append without one keeps it', async (store) => {
    await startRun(store, 'run-1')
    await store.appendStepLogs([append('run-1', 0, 'w', [entry(0)])], T0)
    assert.equal((await only(store, 'run-1', 0)).name, null, 'none given yet')
    await store.appendStepLogs([append('run-1', 0, 'x', [entry(0)], { name: 'ship' })], T0)
    await store.appendStepLogs([append('run-1', 0, 'y', [entry(0)])], T0)
    assert.equal((await only(store, 'run-1', 0)).name, 'ship')
  })

  define(
    'text is kept exactly: unicode, quotes, __proto__ keys, the longest message',
    async (store) => {
      await startRun(store, 'run-1')
      const message = `“ünïcode” 🚀 \\ "quoted" \n${'m'.repeat(4000)}`
      const fields = '{"__proto__":{"admin":true},"constructor":"x","emoji":"🚀"}'
      await store.appendStepLogs([append('run-1', 0, 'e1a1', [entry(0, { message, fields })])], T0)
      const [kept] = (await only(store, 'run-1', 0)).entries
      sameText(kept?.message, message, 'message')
      sameText(kept?.fields, fields, 'fields')
    },
  )

  define(
    'an entry sent again by its execution is merged once; another execution adds its own',
    async (store) => {
      await startRun(store, 'run-1')
      await store.appendStepLogs([append('run-1', 0, 'e1a1', entries(0, 2))], T0)
      // The outcome brings every line still buffered: 1 and 2 again, then 3.
      await store.appendStepLogs([append('run-1', 0, 'e1a1', entries(1, 3))], T0 + 1)
      // A retry in another execution numbers from 0 again.
      const retry = entries(0, 1).map((e) => ({ ...e, attempt: 2, message: `retry ${e.i}` }))
      await store.appendStepLogs([append('run-1', 0, 'e1a2', retry)], T0 + 2)
      const record = await only(store, 'run-1', 0)
      same(
        messages(record),
        ['line 0', 'line 1', 'line 2', 'line 3', 'retry 0', 'retry 1'],
        'each line once, in merge order',
      )
      assert.equal(record.dropped, 0)
    },
  )

  define('numbers an execution skipped count as dropped', async (store) => {
    await startRun(store, 'run-1')
    // Its producer dropped 0..2 before the first send, and 5 between two sends.
    await store.appendStepLogs([append('run-1', 0, 'x', [entry(3), entry(4)])], T0)
    await store.appendStepLogs([append('run-1', 0, 'x', [entry(6)])], T0)
    const record = await only(store, 'run-1', 0)
    same(messages(record), ['line 3', 'line 4', 'line 6'], 'kept')
    assert.equal(record.dropped, 4, 'three before, one between')
  })

  define('past maxEntries the oldest are dropped and counted, across appends', async (store) => {
    await startRun(store, 'run-1')
    await store.appendStepLogs([append('run-1', 0, 'x', entries(0, 4), { maxEntries: 3 })], T0)
    let record = await only(store, 'run-1', 0)
    same(messages(record), ['line 2', 'line 3', 'line 4'], 'the newest three')
    assert.equal(record.dropped, 2)
    await store.appendStepLogs([append('run-1', 0, 'y', [entry(0)], { maxEntries: 3 })], T0)
    record = await only(store, 'run-1', 0)
    same(messages(record), ['line 3', 'line 4', 'line 0'], 'one more in, the oldest out')
    assert.equal(record.dropped, 3)
  })

  define('progress: the newest report wins; an older or repeated one is ignored', async (store) => {
    await startRun(store, 'run-1')
    const send = (execution: string, p: StepProgressRecord) =>
      store.appendStepLogs([append('run-1', 0, execution, [], { progress: p })], T0)
    await send('x', progress(1, 5))
    await send('x', progress(0, 2))
    same((await only(store, 'run-1', 0)).progress, progress(1, 5), 'older report ignored')
    await send('x', progress(2, 7))
    same((await only(store, 'run-1', 0)).progress, progress(2, 7), 'newer report wins')
    const retry = { p: 0, at: T0 + 99, attempt: 2, fraction: 0.1 }
    await send('y', retry)
    same((await only(store, 'run-1', 0)).progress, retry, 'a new execution reports anew')
    const empty = { p: 1, at: T0 + 100, attempt: 2, fraction: null, done: 0, total: 0 }
    await send('y', empty)
    same((await only(store, 'run-1', 0)).progress, empty, 'a null fraction (total 0)')
  })

  define(
    'an append to an unknown run is skipped; a settled position still takes lines',
    async (store) => {
      const fence = await startRun(store, 'run-1')
      await save(store, fence, checkpoint('run-1', 0), T0 + 1)
      await save(store, fence, checkpoint('run-1', 1, { status: 'retrying', order: null }), T0 + 1)
      const merged = await store.appendStepLogs(
        [
          append('nope', 0, 'x', [entry(0)]),
          append('run-1', 0, 'x', [entry(0)]),
          append('run-1', 1, 'x', [entry(0)]),
        ],
        T0 + 2,
      )
      assert.equal(merged, 2, 'both positions of the run merged')
      same(
        (await logsOf(store, 'run-1')).map((r) => r.seq),
        [0, 1],
        'records at the completed and the retrying position',
      )
      same(await logsOf(store, 'nope'), [], 'an unknown run has none')
      assert.equal(await store.getRun('nope'), null, 'and no run was made for it')
    },
  )

  define('a run that ended keeps taking lines for its open positions', async (store) => {
    const fence = await startRun(store, 'run-1')
    await finish(store, fence, T0 + 1)
    assert.equal(await store.appendStepLogs([append('run-1', 4, 'x', [entry(0)])], T0 + 2), 1)
    same(messages(await only(store, 'run-1', 4)), ['line 0'], 'kept')
  })

  define(
    'a save that applies merges its logs in; a fenced or conflicting one does not',
    async (store) => {
      const fence = await startRun(store, 'run-1')
      await store.appendStepLogs([append('run-1', 0, 'x', entries(0, 1))], T0)
      expectApplied(
        await applyOne(
          store,
          saveWithLogs(fence, 0, append('run-1', 0, 'x', entries(1, 2))),
          T0 + 5,
        ),
        'save with logs',
      )
      const record = await only(store, 'run-1', 0)
      same(messages(record), ['line 0', 'line 1', 'line 2'], 'merged with the save')
      assert.equal(record.updatedAt, T0 + 5)
      // Already completed: the late save conflicts, and its lines are not merged.
      const late = await applyOne(
        store,
        saveWithLogs(fence, 0, append('run-1', 0, 'z', [entry(0)])),
        T0 + 6,
      )
      assert.equal(late.status, 'conflict')
      same(messages(await only(store, 'run-1', 0)), ['line 0', 'line 1', 'line 2'], 'unchanged')
      const stale = { runId: 'run-1', epoch: 7 }
      const fenced = await applyOne(
        store,
        saveWithLogs(stale, 1, append('run-1', 1, 'z', [entry(0)])),
        T0 + 7,
      )
      assert.equal(fenced.status, 'fenced')
      same(
        (await logsOf(store, 'run-1')).map((r) => r.seq),
        [0],
        'nothing at the fenced position',
      )
    },
  )

  define(
    'a retrying save carries its attempt’s lines; the next attempt adds to them',
    async (store) => {
      const fence = await startRun(store, 'run-1')
      const first = append('run-1', 2, 'e1a1', [entry(0, { message: 'try 1' })])
      expectApplied(
        await applyOne(store, saveWithLogs(fence, 2, first, 'retrying'), T0),
        'retrying',
      )
      const second = append('run-1', 2, 'e1a2', [entry(0, { attempt: 2, message: 'try 2' })])
      expectApplied(await applyOne(store, saveWithLogs(fence, 2, second), T0 + 1), 'completed')
      same(messages(await only(store, 'run-1', 2)), ['try 1', 'try 2'], 'both attempts')
    },
  )

  define('loadStepLogs pages by position', async (store) => {
    await startRun(store, 'run-1')
    await startRun(store, 'run-2')
    await store.appendStepLogs(
      [5, 1, 3, 9].map((seq) => append('run-1', seq, 'x', [entry(0)])),
      T0,
    )
    await store.appendStepLogs([append('run-2', 2, 'x', [entry(0)])], T0)
    const seqs = async (fromSeq: number, limit: number) =>
      (await store.loadStepLogs('run-1', { fromSeq, limit })).map((r) => r.seq)
    same(await seqs(0, 1000), [1, 3, 5, 9], 'all, in seq order')
    same(await seqs(3, 2), [3, 5], 'from 3, two')
    same(await seqs(10, 5), [], 'past the last')
  })

  define('updatedFrom reads only the records changed since', async (store) => {
    await startRun(store, 'run-1')
    await store.appendStepLogs([append('run-1', 1, 'x', [entry(0)])], T0 + 10)
    await store.appendStepLogs([append('run-1', 2, 'x', [entry(0)])], T0 + 20)
    await store.appendStepLogs([append('run-1', 1, 'x', [entry(1)])], T0 + 30)
    const since = async (updatedFrom: number) =>
      (await store.loadStepLogs('run-1', { fromSeq: 0, limit: 10, updatedFrom })).map((r) => [
        r.seq,
        r.updatedAt,
      ])
    same(
      await since(T0 + 20),
      [
        [1, T0 + 30],
        [2, T0 + 20],
      ],
      'at or after: both',
    )
    same(await since(T0 + 21), [[1, T0 + 30]], 'after the second: the first, changed again')
    same(await since(T0 + 31), [], 'nothing since')
    await expectRejection(
      () => store.loadStepLogs('run-1', { fromSeq: 0, limit: 10, updatedFrom: Number.NaN }),
      INVALID,
      'a NaN updatedFrom',
    )
  })

  define('concurrent appends to one new position all land', async (store) => {
    await startRun(store, 'run-1')
    await Promise.all(
      Array.from({ length: 12 }, (_, k) =>
        store.appendStepLogs(
          [append('run-1', 0, `exec-${k}`, [entry(0, { message: `m${k}` })])],
          T0,
        ),
      ),
    )
    const record = await only(store, 'run-1', 0)
    same(
      messages(record).sort(),
      Array.from({ length: 12 }, (_, k) => `m${k}`).sort(),
      'every execution’s line',
    )
  })

  define('a deleted run’s records go with it', async (store) => {
    const fence = await startRun(store, 'run-1')
    await store.appendStepLogs([append('run-1', 0, 'x', [entry(0)])], T0)
    await finish(store, fence, T0 + 1)
    const { trees } = await store.deleteRunTrees({ runIds: ['run-1'], maxRuns: 10 })
    assert.equal(trees[0]?.outcome, 'deleted')
    await startRun(store, 'run-1', T0 + 2)
    same(await logsOf(store, 'run-1'), [], 'a new run of the same id starts with none')
  })

  define('a requeue keeps the records of the positions it re-runs', async (store) => {
    const fence = await startRun(store, 'run-1')
    const failed = checkpoint('run-1', 0, { status: 'failed', output: null, error: '{"name":"E"}' })
    const op: StoreOp = {
      type: 'saveCheckpoint',
      fence,
      checkpoint: failed,
      logs: append('run-1', 0, 'e1a1', [entry(0, { level: 'error', message: 'boom' })]),
    }
    expectApplied(await applyOne(store, op, T0), 'failed save')
    const end: StoreOp = { type: 'finishRun', fence, status: 'failed', output: null, error: '{}' }
    expectApplied(await applyOne(store, end, T0 + 1), 'finishRun failed')
    const requeued = await store.requeueRun({
      runId: 'run-1',
      epoch: 1,
      resetSeqs: [0],
      now: T0 + 2,
    })
    assert.equal(requeued.status, 'applied')
    await store.appendStepLogs(
      [append('run-1', 0, 'e3a1', [entry(0, { message: 'again' })])],
      T0 + 3,
    )
    same(messages(await only(store, 'run-1', 0)), ['boom', 'again'], 'old lines, then new')
  })

  define('malformed appends and pages are refused, nothing written', async (store) => {
    const fence = await startRun(store, 'run-1')
    const good = append('run-1', 0, 'x', [entry(0)])
    const bad: Array<[string, unknown]> = [
      ['a bad level', { ...good, entries: [{ ...entry(0), level: 'debug' }] }],
      ['numbers not increasing', { ...good, entries: [entry(1), entry(1)] }],
      ['a negative number', { ...good, entries: [entry(-1)] }],
      ['maxEntries 0', { ...good, maxEntries: 0 }],
      ['an empty execution', { ...good, execution: '' }],
      ['an empty name', { ...good, name: '' }],
      ['a name not text', { ...good, name: 7 }],
      ['a NaN time', { ...good, entries: [{ ...entry(0), at: Number.NaN }] }],
      ['a fraction above 1', { ...good, progress: { ...progress(0, 1), fraction: 1.5 } }],
      ['fields not text', { ...good, entries: [{ ...entry(0), fields: { a: 1 } }] }],
      ['a message too long', { ...good, entries: [{ ...entry(0), message: 'x'.repeat(5000) }] }],
    ]
    for (const [what, value] of bad)
      await expectRejection(
        () => store.appendStepLogs([good, value as StepLogAppend], T0),
        INVALID,
        what,
      )
    await expectRejection(
      () =>
        store.appendStepLogs(
          Array.from({ length: 101 }, () => good),
          T0,
        ),
      INVALID,
      '101 appends',
    )
    same(await logsOf(store, 'run-1'), [], 'no refused call wrote anything')
    const elsewhere = saveWithLogs(fence, 0, append('run-1', 1, 'x', [entry(0)]))
    await expectRejection(() => store.applyBatch([elsewhere], T0), INVALID, 'logs of another seq')
    same(await store.loadCheckpoints('run-1'), [], 'the refused batch saved nothing')
    await expectRejection(
      () => store.loadStepLogs('run-1', { fromSeq: -1, limit: 10 }),
      INVALID,
      'a negative fromSeq',
    )
    await expectRejection(
      () => store.loadStepLogs('run-1', { fromSeq: 0, limit: 1001 }),
      INVALID,
      'a limit above 1000',
    )
  })
}
