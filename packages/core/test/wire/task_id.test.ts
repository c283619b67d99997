/**
 * Task ids (`taskIdOf`, `parseTaskId`) and protocol negotiation (`agreedProtocol`).
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import {
  agreedProtocol,
  MAX_DURATION_MS,
  parseTaskId,
  parseWireMessage,
  PROTOCOL_VERSIONS,
  taskIdOf,
} from '@cairn/core/wire'

const runIdChar = fc
  .oneof(
    fc.integer({ min: 0x20, max: 0x7e }),
    fc.integer({ min: 0xa0, max: 0xd7ff }),
    fc.integer({ min: 0xe000, max: 0x10ffff }),
  )
  .map((c) => String.fromCodePoint(c))
const address = fc.record(
  {
    runId: fc.string({ unit: runIdChar, minLength: 1, maxLength: 255 }),
    seq: fc.maxSafeNat(),
    attempt: fc.integer({ min: 1, max: MAX_DURATION_MS }),
  },
  { noNullPrototype: true },
)

void test('taskIdOf and parseTaskId round-trip any run id, seq and attempt', () => {
  fc.assert(
    fc.property(address, (a) => {
      const id = taskIdOf(a)
      assert.match(id, /^[A-Za-z0-9_-]+\.(0|[1-9][0-9]*)\.[1-9][0-9]*$/)
      assert.deepEqual(parseTaskId(id), a)
    }),
    { numRuns: 1000 },
  )
})

void test('run ids with slashes, dots, astral characters and spaces', () => {
  for (const runId of [
    'a/b.c',
    '😀.😀',
    '...',
    'run.1.2',
    '../../etc/passwd',
    ' a b ',
    'é',
    '中文',
  ]) {
    const a = { runId, seq: 3, attempt: 1 }
    const id = taskIdOf(a)
    assert.doesNotMatch(id.split('.')[0] as string, /[/+=.]/)
    assert.deepEqual(parseTaskId(id), a)
  }
  assert.equal(taskIdOf({ runId: 'run_01HZX3T6Q8', seq: 4, attempt: 2 }), 'cnVuXzAxSFpYM1Q2UTg.4.2')
  assert.equal(taskIdOf({ runId: '😀', seq: 0, attempt: 1 }), '8J-YgA.0.1')
})

void test('ids taskIdOf does not make are refused', () => {
  for (const id of [
    '',
    'YQ',
    'YQ.1',
    'YQ.1.1.1',
    '.1.1', // no run id
    'YQ==.1.1', // padding
    'YR.1.1', // non-canonical: the unused bits of the last character are not zero
    'YQ.01.1', // leading zero
    'YQ.1.0', // attempt 0
    'YQ.-1.1',
    'YQ.1.1 ',
    'Y+Q.1.1', // base64, not base64url
    'YQ.9007199254740993.1', // seq past 2^53: not a number exactly
    'YQ.1.99999999999', // attempt of 11 digits
    '_w.1.1', // the byte 0xFF: not UTF-8
    '7aCA.1.1', // a surrogate encoded in UTF-8
  ])
    assert.equal(parseTaskId(id), null, id)
  assert.deepEqual(parseTaskId('YQ.9007199254740991.2147483647'), {
    runId: 'a',
    seq: 9007199254740991,
    attempt: 2147483647,
  })
})

void test('the task id of any run id fits the format: 255 code points of 4 bytes, or of 3', () => {
  for (const runId of ['😀'.repeat(255), '中'.repeat(255)]) {
    const taskId = taskIdOf({ runId, seq: Number.MAX_SAFE_INTEGER, attempt: MAX_DURATION_MS })
    assert.ok(taskId.length > 1000)
    const heartbeat = {
      v: 1,
      type: 'heartbeat',
      taskId,
      runId,
      seq: Number.MAX_SAFE_INTEGER,
      attempt: MAX_DURATION_MS,
      workerId: 'w',
      at: 0,
    }
    assert.equal(parseWireMessage(JSON.stringify(heartbeat)).ok, true)
  }
})

void test('agreedProtocol: the highest version both sides speak, or null', () => {
  assert.deepEqual(PROTOCOL_VERSIONS, [1])
  assert.equal(agreedProtocol([1]), 1)
  assert.equal(agreedProtocol([1, 2, 3]), 1)
  assert.equal(agreedProtocol([3, 1, 1]), 1)
  assert.equal(agreedProtocol([]), null)
  assert.equal(agreedProtocol([2, 3]), null)
  assert.equal(agreedProtocol([0, -1, 1.5]), null)
  fc.assert(
    fc.property(fc.array(fc.integer({ min: -2, max: 1001 })), (announced) => {
      const shared = announced.filter((v) => PROTOCOL_VERSIONS.includes(v))
      assert.equal(agreedProtocol(announced), shared.length === 0 ? null : Math.max(...shared))
    }),
  )
})
