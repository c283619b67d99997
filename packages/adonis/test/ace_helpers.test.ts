/**
 * The pure parts of the durable:* commands, in-process: flag checking, the stale query, and
 * what a run's row says. (The commands themselves run in the fixture app: durable_*.test.ts.)
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { RunInfo } from '@cairn/core'
import { buildRunQuery, parseStatuses } from '../src/ace/run_query.ts'
import { detail, runJson } from '../src/ace/run_view.ts'
import { staleRunsQuery } from '../src/ace/stale_runs.ts'
import { workOverrides } from '../src/ace/work_flags.ts'

const NOW = Date.UTC(2030, 0, 1, 12)

function run(fields: Partial<RunInfo>): RunInfo {
  return {
    id: 'r-1',
    workflow: 'order',
    version: '1',
    status: 'pending',
    input: { secret: 'card' },
    output: undefined,
    error: null,
    parkReason: null,
    waitingOn: null,
    wakeAt: null,
    claimableAt: null,
    createdAt: new Date(NOW - 60_000),
    updatedAt: new Date(NOW - 60_000),
    finishedAt: null,
    turns: 0,
    recoveries: 0,
    leaseOwner: null,
    parentRunId: null,
    parentSeq: null,
    continuedFrom: null,
    continuedTo: null,
    searchAttributes: {},
    tags: [],
    origin: null,
    priority: 0,
    singletonKey: null,
    queue: null,
    ...fields,
  }
}

void describe('durable:runs flags', () => {
  void test('statuses: repeated or comma-separated, deduplicated; an unknown one names itself', () => {
    assert.deepEqual(parseStatuses(['pending,running', 'pending', ' waiting ']), [
      'pending',
      'running',
      'waiting',
    ])
    assert.equal(parseStatuses(undefined), undefined)
    assert.throws(() => parseStatuses(['Pending']), {
      code: 'E_INVALID_ARGUMENT',
      message: /--status "Pending" is not a run status/,
    })
    assert.throws(() => parseStatuses(['pending,']), { message: /--status "" is not a run status/ })
  })

  void test('limit: default 50, clamped to 1..1000 with a note, a fraction refused', () => {
    assert.equal(buildRunQuery({}).query.limit, 50)
    assert.deepEqual(buildRunQuery({ limit: 5000 }), {
      query: { limit: 1000 },
      notes: ['--limit 5000 is outside 1..1000: showing at most 1000'],
    })
    assert.deepEqual(buildRunQuery({ limit: 7 }), { query: { limit: 7 }, notes: [] })
    assert.throws(() => buildRunQuery({ limit: 2.5 }), {
      message: /--limit must be a whole number/,
    })
    assert.throws(() => buildRunQuery({ workflow: ' ' }), {
      message: /--workflow must not be empty/,
    })
  })
})

void describe('stale runs', () => {
  const after = 60_000

  void test('the store is asked for open runs claimable before now minus the threshold', () => {
    assert.deepEqual(staleRunsQuery({ limit: 50, staleAfterMs: after, now: NOW }), {
      status: ['pending', 'running', 'waiting', 'blocked'],
      claimableBefore: NOW - after,
      limit: 50,
    })
    assert.deepEqual(
      staleRunsQuery({
        workflow: 'order',
        status: ['running'],
        limit: 5,
        staleAfterMs: 0,
        now: NOW,
      }),
      { status: ['running'], claimableBefore: NOW, limit: 5, workflow: 'order' },
    )
  })

  void test('closed statuses and a bad threshold are refused', () => {
    for (const status of ['parked', 'completed', 'failed', 'cancelled', 'continued'] as const)
      assert.throws(
        () => staleRunsQuery({ status: [status], limit: 50, staleAfterMs: after, now: NOW }),
        { code: 'E_INVALID_ARGUMENT' },
        status,
      )
    for (const staleAfterMs of [-1, 1.5])
      assert.throws(() => staleRunsQuery({ limit: 50, staleAfterMs, now: NOW }), {
        message: /--stale-after must be a whole number/,
      })
  })
})

void describe('run rows', () => {
  void test('the detail column says what the run waits for or why it ended', () => {
    const lease = { status: 'running' as const, leaseOwner: 'worker-1' }
    assert.equal(
      detail(run({ ...lease, claimableAt: new Date(NOW + 20_000) }), NOW),
      'lease worker-1, expires in 20s',
    )
    assert.equal(
      detail(run({ ...lease, claimableAt: new Date(NOW - 120_000) }), NOW),
      'lease worker-1, expired 2m ago',
    )
    assert.equal(detail(run({ claimableAt: new Date(NOW - 60_000) }), NOW), 'claimable 1m ago')
    const failed = run({
      status: 'failed',
      error: { name: 'FatalError', code: 'E_FATAL', message: 'no' },
    })
    assert.equal(detail(failed, NOW), 'E_FATAL: no')
    const parked = run({
      status: 'parked',
      parkReason: { code: 'E_NON_DETERMINISM', message: 'step differs' },
    })
    assert.equal(detail(parked, NOW), 'E_NON_DETERMINISM: step differs')
  })

  void test('JSON carries no input or output', () => {
    const json = runJson(run({ status: 'completed', output: { token: 'x' } }))
    assert.equal('input' in json, false)
    assert.equal('output' in json, false)
    assert.equal(json.createdAt, new Date(NOW - 60_000).toISOString())
  })
})

void describe('durable:work flags', () => {
  void test('checked, named, and passed on as config overrides', () => {
    assert.deepEqual(workOverrides({}), {})
    assert.deepEqual(workOverrides({ concurrency: 4, instanceId: 'pod-7', drainTimeout: 0 }), {
      concurrency: 4,
      instanceId: 'pod-7',
      drainTimeoutMs: 0,
    })
    assert.throws(() => workOverrides({ concurrency: 1.5 }), { message: /--concurrency must be/ })
    assert.throws(() => workOverrides({ instanceId: 'a\u0000b' }), {
      message: /--instance-id must be/,
    })
    assert.throws(() => workOverrides({ drainTimeout: -1 }), { message: /--drain-timeout must be/ })
  })
})
