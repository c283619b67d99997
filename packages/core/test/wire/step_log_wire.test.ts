/**
 * A remote step's lines on the wire (docs/wire.md "Step logs"): what a report's `logs` stands
 * for, as the engine stores it — the fixture's lines and progress, an execution named after
 * the task and the worker, nothing for a report without them, and an Error (never a throw)
 * for malformed ones.
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import {
  appendOfReport,
  parseWireMessage,
  StepLogBuffer,
  wireLogs,
  MAX_WIRE_LOG_CHARS,
  type HeartbeatMessage,
  type ResultMessage,
} from '@cairn/core/wire'
import { JsonCodec } from '@cairn/core'

function fixture<T>(name: string): T {
  const text = readFileSync(new URL(`./fixtures/valid/${name}`, import.meta.url), 'utf8')
  const parsed = parseWireMessage(text)
  if (!parsed.ok) assert.fail(`${name} is refused: ${parsed.refusal.reason}`)
  return parsed.message as T
}

void test('a result’s logs become the append the engine stores with the outcome', () => {
  const result = fixture<ResultMessage>('result-logs.json')
  const append = appendOfReport(result, 200)
  assert.ok(append !== null && !(append instanceof Error))
  assert.equal(append.runId, result.runId)
  assert.equal(append.seq, result.seq)
  assert.equal(append.maxEntries, 200)
  assert.deepEqual(
    append.entries.map((e) => [e.i, e.level, e.message, e.fields, e.truncated]),
    [
      [0, 'info', 'charging', '{"amount":4200}', undefined],
      [1, 'warn', 'slow issuer', undefined, true],
    ],
  )
  assert.deepEqual(append.progress, {
    p: 1,
    at: 1772357401240,
    attempt: 2,
    fraction: 1,
    done: 2,
    total: 2,
  })
  const heartbeat = fixture<HeartbeatMessage>('heartbeat-logs.json')
  const other = appendOfReport(heartbeat, 200)
  assert.ok(other !== null && !(other instanceof Error))
  assert.equal(other.execution, append.execution, 'one task on one worker: one execution')
  const elsewhere = appendOfReport({ ...heartbeat, workerId: 'worker-2' }, 200)
  assert.ok(elsewhere !== null && !(elsewhere instanceof Error))
  assert.notEqual(elsewhere.execution, append.execution, 'redelivered to another worker: anew')
  assert.ok(append.execution.length <= 200)
})

void test('no logs: nothing; malformed logs: an Error to log, never a throw', () => {
  const heartbeat = fixture<HeartbeatMessage>('heartbeat.json')
  assert.equal(appendOfReport(heartbeat, 200), null)
  for (const logs of ['not json', '{"entries":[{"i":0}]}', '{"entries":"x"}', 'null', '[]'])
    assert.ok(appendOfReport({ ...heartbeat, logs }, 200) instanceof Error, logs)
})

void test('what a worker’s buffer writes, the engine reads back line for line', () => {
  let now = 1_000
  const buffer = new StepLogBuffer({
    runId: 'r',
    seq: 3,
    execution: 'worker',
    attempt: 1,
    maxEntries: 2,
    codec: new JsonCodec(),
    now: () => now++,
  })
  buffer.add('info', 'one', { a: 1 })
  buffer.add('warn', 'two', undefined)
  buffer.add('error', 'three', { big: 1n })
  buffer.progress({ done: 1, total: 4 })
  const heartbeat = { ...fixture<HeartbeatMessage>('heartbeat.json'), runId: 'r', seq: 3 }
  const append = appendOfReport({ ...heartbeat, logs: wireLogs(buffer.pending()) as string }, 50)
  assert.ok(append !== null && !(append instanceof Error))
  assert.deepEqual(
    append.entries.map((e) => [e.i, e.message]),
    [
      [1, 'two'],
      [2, 'three'],
    ],
    'the newest two: number 0 was dropped by the buffer (a gap the store counts)',
  )
  assert.equal(append.entries[1]?.fields, new JsonCodec().encode({ big: 1n }))
  assert.equal(append.progress?.fraction, 0.25)
})

void test('a report carries the newest lines within 256 KB; the rest count as dropped', () => {
  const entries = Array.from({ length: 120 }, (_, i) => ({
    i,
    at: 1_000 + i,
    level: 'info' as const,
    attempt: 1,
    message: `${i}:`.padEnd(4000, 'é'),
  }))
  const pending = { runId: 'r', seq: 3, execution: 'worker', entries, maxEntries: 200 }
  const text = wireLogs(pending, 'exec-1') as string
  assert.ok(text.length <= MAX_WIRE_LOG_CHARS, `${text.length} characters`)
  const heartbeat = { ...fixture<HeartbeatMessage>('heartbeat.json'), runId: 'r', seq: 3 }
  const append = appendOfReport({ ...heartbeat, logs: text }, 200)
  assert.ok(append !== null && !(append instanceof Error))
  const kept = append.entries.map((e) => e.i)
  assert.equal(kept.at(-1), 119, 'the newest line is there')
  assert.deepEqual(
    kept,
    Array.from({ length: kept.length }, (_, k) => 120 - kept.length + k),
  )
  assert.ok(kept.length > 50 && kept.length < 120, `${kept.length} lines fit`)
})

void test('the worker’s execution id names the execution: a redelivery numbers anew', () => {
  const heartbeat = fixture<HeartbeatMessage>('heartbeat.json')
  const pending = {
    runId: heartbeat.runId,
    seq: heartbeat.seq,
    execution: 'worker',
    entries: [],
    maxEntries: 5,
  }
  const of = (id: string | undefined) => {
    const append = appendOfReport({ ...heartbeat, logs: wireLogs(pending, id) as string }, 5)
    assert.ok(append !== null && !(append instanceof Error))
    return append.execution
  }
  assert.equal(of('a'), of('a'))
  assert.notEqual(of('a'), of('b'))
  assert.notEqual(of('a'), of(undefined))
  const tooLong = wireLogs(pending, 'x'.repeat(101)) as string
  assert.ok(appendOfReport({ ...heartbeat, logs: tooLong }, 5) instanceof Error)
})
