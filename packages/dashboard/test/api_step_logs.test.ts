/**
 * Step logs over real HTTP: `GET api/runs/:id/logs` (shape, paging, unknown runs, bad
 * parameters) and the run stream's `event: logs` (a record sent when it changes, not again
 * while it stays the same; `?seq=N` narrows the stream to one position). Records are written
 * through the memory store directly, as a running step's flushes would write them.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { serveDashboard, type ServedDashboard } from '@cairn/dashboard'
import type { StepLogEntry, StepProgressRecord } from '@cairn/core/contracts'
import { TOKEN, fixture, type Fixture, type Json } from './helpers.ts'
import { SseReader, type SseEvent } from './sse_reader.ts'

const T0 = Date.parse('2030-01-02T03:04:05.006Z')

const entry = (i: number, message: string, extra: Partial<StepLogEntry> = {}): StepLogEntry => ({
  i,
  at: T0 + i,
  level: 'info',
  attempt: 1,
  message,
  ...extra,
})

void describe('dashboard step logs', () => {
  let f: Fixture
  let served: ServedDashboard
  let release: () => void = () => {}
  before(async () => {
    f = await fixture({ stream: { keepAliveMs: 5_000, runPollMs: 50, listPollMs: 50 } })
    const gate = new Promise<void>((resolve) => (release = resolve))
    // Position 0 runs until the test lets it finish: a running step, no checkpoint yet.
    f.engine.register('gated', 1, async (ctx) => ctx.localStep('work', () => gate.then(() => 1)))
    served = await serveDashboard(f.dashboard)
  })
  after(async () => {
    release()
    await served.close()
    await f.close()
  })

  const get = (path: string) =>
    fetch(`${served.url}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } })
  const getJson = async (path: string) => {
    const response = await get(path)
    return { status: response.status, json: (await response.json()) as Json }
  }
  const append = (
    runId: string,
    seq: number,
    entries: StepLogEntry[],
    progress?: StepProgressRecord,
    execution = 'x',
  ) =>
    f.engine.options.store.appendStepLogs(
      [{ runId, seq, execution, entries, maxEntries: 200, ...(progress ? { progress } : {}) }],
      Date.now(),
    )

  void test('GET api/runs/:id/logs gives each record with ISO times and JSON fields', async () => {
    const { runId } = await f.engine.start('wait', {})
    await f.engine.whenQuiet()
    const codec = f.engine.options.codec
    await append(
      runId,
      0,
      [
        entry(0, 'hello', { fields: codec.encode({ a: 1, when: new Date(T0), big: 10n }) }),
        entry(1, '<b>not markup</b>', { level: 'warn', attempt: 2, truncated: true }),
        // Fields another codec wrote: shown as their text.
        entry(2, 'odd', { level: 'error', fields: 'not json {' }),
      ],
      { p: 0, at: T0 + 5, attempt: 2, fraction: 0.5, done: 5, total: 10 },
    )
    await append(runId, 3, [], { p: 0, at: T0, attempt: 1, fraction: null, done: 0, total: 0 })

    const { status, json } = await getJson(`/api/runs/${runId}/logs`)
    assert.equal(status, 200)
    assert.equal(json.nextFromSeq, null)
    assert.deepEqual(
      json.logs.map((record: Json) => record.seq),
      [0, 3],
    )
    const [first, second] = json.logs
    assert.deepEqual(first.lines, [
      {
        at: '2030-01-02T03:04:05.006Z',
        level: 'info',
        attempt: 1,
        message: 'hello',
        fields: { a: 1, when: '2030-01-02T03:04:05.006Z', big: '10' },
        truncated: false,
      },
      {
        at: '2030-01-02T03:04:05.007Z',
        level: 'warn',
        attempt: 2,
        message: '<b>not markup</b>',
        fields: null,
        truncated: true,
      },
      {
        at: '2030-01-02T03:04:05.008Z',
        level: 'error',
        attempt: 1,
        message: 'odd',
        fields: 'not json {',
        truncated: false,
      },
    ])
    assert.equal(first.dropped, 0)
    assert.deepEqual(first.progress, {
      at: '2030-01-02T03:04:05.011Z',
      attempt: 2,
      fraction: 0.5,
      done: 5,
      total: 10,
    })
    assert.match(first.updatedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    assert.deepEqual(second.lines, [])
    assert.deepEqual(second.progress, {
      at: '2030-01-02T03:04:05.006Z',
      attempt: 1,
      fraction: null,
      done: 0,
      total: 0,
    })
  })

  void test('GET api/runs/:id/logs pages by position like api/runs/:id/steps', async () => {
    const { runId } = await f.engine.start('wait', {})
    await f.engine.whenQuiet()
    for (const seq of [1, 4, 9]) await append(runId, seq, [entry(0, `at ${seq}`)])
    const page1 = await getJson(`/api/runs/${runId}/logs?limit=2`)
    assert.deepEqual(
      page1.json.logs.map((record: Json) => record.seq),
      [1, 4],
    )
    assert.equal(page1.json.nextFromSeq, 5, 'a full page continues after its last record')
    const page2 = await getJson(`/api/runs/${runId}/logs?fromSeq=5&limit=2`)
    assert.deepEqual(
      page2.json.logs.map((record: Json) => record.seq),
      [9],
    )
    assert.equal(page2.json.nextFromSeq, null)
    const none = await getJson(`/api/runs/${(await f.engine.start('wait', {})).runId}/logs`)
    assert.deepEqual(none.json, { logs: [], nextFromSeq: null })
  })

  void test('GET api/runs/:id/logs: unknown run 404, bad parameters 400', async () => {
    const unknown = await getJson('/api/runs/no-such-run/logs')
    assert.equal(unknown.status, 404)
    assert.equal(unknown.json.error.code, 'E_RUN_NOT_FOUND')
    const { runId } = await f.engine.start('wait', {})
    for (const query of ['fromSeq=abc', 'limit=2.5', 'limit=', 'fromSeq=1e3']) {
      const answer = await getJson(`/api/runs/${runId}/logs?${query}`)
      if (query === 'limit=') assert.equal(answer.status, 200, 'empty is the default')
      else {
        assert.equal(answer.status, 400, query)
        assert.equal(answer.json.error.code, 'E_INVALID_ARGUMENT', query)
      }
    }
    // Out of range is clamped, as for steps.
    assert.equal((await getJson(`/api/runs/${runId}/logs?limit=5000&fromSeq=-3`)).status, 200)
    const anonymous = await fetch(`${served.url}/api/runs/${runId}/logs`)
    assert.equal(anonymous.status, 401)
  })

  const openStream = async (path: string) => {
    const response = await get(path)
    assert.equal(response.status, 200)
    return new SseReader(response)
  }
  const logsOf = (event: SseEvent, seq: number) =>
    event.event === 'logs'
      ? ((event.data as Json).logs as Json[]).filter((record) => record.seq === seq)
      : []

  void test('the run stream sends a record as it changes, then ends', async () => {
    const { runId } = await f.engine.start('gated', null)
    await append(runId, 0, [entry(0, 'started', { fields: '{"batch":1}' })], {
      p: 0,
      at: T0,
      attempt: 1,
      fraction: 0.25,
      done: 1,
      total: 4,
    })
    const reader = await openStream(`/api/stream/runs/${runId}`)
    const first = await reader.until((e) => logsOf(e, 0).length > 0)
    const record = logsOf(first[first.length - 1] as SseEvent, 0)[0]
    assert.deepEqual(
      record.lines.map((line: Json) => [line.message, line.fields]),
      [['started', { batch: 1 }]],
    )
    assert.equal(record.progress.done, 1)
    await new Promise((resolve) => setTimeout(resolve, 250)) // a few polls, nothing new

    await append(runId, 0, [entry(1, 'halfway', { level: 'warn' })], {
      p: 1,
      at: T0 + 1,
      attempt: 1,
      fraction: 0.5,
      done: 2,
      total: 4,
    })
    const next = await reader.until((e) => logsOf(e, 0).some((r) => r.lines.length === 2))
    const updated = logsOf(next[next.length - 1] as SseEvent, 0)[0]
    assert.deepEqual(updated.progress.fraction, 0.5)
    assert.equal(updated.lines[1].level, 'warn')
    // The polls in between found nothing new: nothing was sent again.
    assert.equal(next.filter((e) => logsOf(e, 0).length > 0).length, 1, JSON.stringify(next))

    release()
    const rest = await reader.until((e) => e.event === 'end')
    const sent = [...first, ...next, ...rest].flatMap((e) => logsOf(e, 0))
    for (let i = 1; i < sent.length; i++)
      assert.notDeepEqual(sent[i], sent[i - 1], 'a record is sent again only when it changed')
    assert.equal(await reader.next(), null)
  })

  void test('?seq=N streams position N only; a bad seq is 400', async () => {
    const { runId } = await f.engine.start('wait', {})
    await f.engine.whenQuiet()
    await append(runId, 0, [entry(0, 'zero')])
    await append(runId, 2, [entry(0, 'two')])
    const reader = await openStream(`/api/stream/runs/${runId}?seq=2`)
    const events = await reader.until((e) => e.event === 'logs')
    const logs = (events[events.length - 1]?.data as Json).logs as Json[]
    assert.deepEqual(
      logs.map((r) => r.seq),
      [2],
    )
    assert.ok(events.every((e) => e.event !== 'step' || (e.data as Json).seq === 2))
    await reader.cancel()
    for (const seq of ['x', '1.5', '']) {
      const response = await get(`/api/stream/runs/${runId}?seq=${seq}`)
      assert.equal(response.status, seq === '' ? 200 : 400, seq)
      await response.body?.cancel()
    }
  })
})
