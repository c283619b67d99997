import assert from 'node:assert/strict'
import { test } from 'node:test'
import { JsonCodec } from '../src/codec/index.ts'
import type { CheckpointKind, CheckpointRecord } from '../src/contracts/records.ts'
import { planRequeue } from '../src/engine/requeue_plan.ts'
import { decodeError, encodeError } from '../src/execution/outcome.ts'

const codec = new JsonCodec()

/** What a step records when its body throws `thrown`. */
const stepError = (thrown: unknown) => encodeError(thrown, codec)

/** What the run records when its body re-throws the error the step delivered. */
const rethrown = (recorded: string) => encodeError(decodeError(recorded, codec), codec)

/** What the run records when its body throws a new error with the delivered one as cause. */
const wrapped = (recorded: string) =>
  encodeError(new Error('wrapped', { cause: decodeError(recorded, codec) }), codec)

function failed(seq: number, order: number | null, error: string, kind: CheckpointKind = 'local') {
  return record(seq, order, { status: 'failed', error, kind })
}

function completed(seq: number, order: number, name = `step-${seq}`) {
  return record(seq, order, { status: 'completed', output: '1', name })
}

function record(seq: number, order: number | null, fields: Partial<CheckpointRecord>) {
  const base: CheckpointRecord = {
    runId: 'run',
    seq,
    name: `step-${seq}`,
    kind: 'local',
    status: 'completed',
    attempts: 1,
    order,
    input: null,
    output: null,
    error: null,
    wakeAt: null,
    startedAt: 0,
    updatedAt: 0,
    worker: null,
  }
  return { ...base, ...fields }
}

const boom = stepError(new Error('boom'))
const other = stepError(new TypeError('other'))

void test('the failed step the run re-threw is reset; completed steps are not', () => {
  const history = [completed(0, 1), failed(1, 2, boom)]
  assert.deepEqual(planRequeue(rethrown(boom), history, codec), { resetSeqs: [1] })
})

void test('a step error wrapped as a cause of the run error counts as escaped', () => {
  const history = [completed(0, 1), failed(1, 2, boom)]
  assert.deepEqual(planRequeue(wrapped(boom), history, codec), { resetSeqs: [1] })
})

void test('a thrown non-Error (no stack recorded) still matches its re-thrown form', () => {
  const odd = stepError('a plain string')
  assert.deepEqual(planRequeue(rethrown(odd), [failed(0, 1, odd)], codec), { resetSeqs: [0] })
})

void test('an identical failure caught earlier stays: only the latest escaped one is reset', () => {
  const history = [failed(0, 1, boom), completed(1, 2), failed(2, 3, boom)]
  assert.deepEqual(planRequeue(rethrown(boom), history, codec), { resetSeqs: [2] })
})

void test('a different failure before the escaped one was handled: kept', () => {
  const history = [failed(0, 1, other), completed(1, 2), failed(2, 3, boom)]
  assert.deepEqual(planRequeue(rethrown(boom), history, codec), { resetSeqs: [2] })
})

void test('failed steps delivered after the escaped one are reset with it', () => {
  const history = [failed(0, 2, boom), failed(1, 3, other), completed(2, 4)]
  assert.deepEqual(planRequeue(rethrown(boom), history, codec), { resetSeqs: [0, 1] })
})

void test("the workflow's own error resets nothing", () => {
  const history = [failed(0, 1, boom), completed(1, 2)]
  const own = encodeError(new Error('validation failed'), codec)
  assert.deepEqual(planRequeue(own, history, codec), { resetSeqs: [] })
})

void test('only delivered local steps count: waits, children and undelivered records stay', () => {
  const history = [failed(0, 1, boom, 'signal'), failed(1, 2, boom, 'child'), failed(2, null, boom)]
  assert.deepEqual(planRequeue(rethrown(boom), history, codec), { resetSeqs: [] })
})

void test('no error, or an unreadable one, resets nothing', () => {
  const history = [failed(0, 1, boom)]
  assert.deepEqual(planRequeue(null, history, codec), { resetSeqs: [] })
  assert.deepEqual(planRequeue('not json', history, codec), { resetSeqs: [] })
  assert.deepEqual(planRequeue(rethrown(boom), [failed(0, 1, 'garbage')], codec), {
    resetSeqs: [],
  })
})

void test('a run that ran a compensation is refused', () => {
  const history = [completed(0, 1), failed(1, 2, boom), completed(2, 3, 'compensate:step-0')]
  assert.deepEqual(planRequeue(rethrown(boom), history, codec), { refused: 'compensated' })
})
