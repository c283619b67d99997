/**
 * `durable:replay`'s verdict (src/ace/replay_view.ts): a park, or a run that fails on the
 * current code where the recorded one had not, fails the command; a different ending is said,
 * never "as recorded".
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { ReplayReport } from '@cairn/core/testing'
import { replayFails, replayLine } from '../src/ace/replay_view.ts'

const base = { runId: 'r1', workflow: 'checkout', version: '1', positions: 4 }
const ended = (endedAt: ReplayReport['endedAt']): ReplayReport => ({ ...base, endedAt })

void test('a park or a new failure fails; the recorded ending or a wait does not', () => {
  const failed = ended({ kind: 'finished', status: 'failed' })
  assert.equal(replayFails(failed, 'waiting'), true, 'fails now, was waiting')
  assert.equal(replayFails(failed, 'completed'), true)
  assert.equal(replayFails(failed, 'failed'), false, 'failed as recorded')
  assert.equal(replayFails(failed, 'dead'), false)
  assert.equal(replayFails(ended({ kind: 'parked', code: 'E_X', message: 'm' }), 'waiting'), true)
  assert.equal(replayFails(ended({ kind: 'finished', status: 'completed' }), 'completed'), false)
  assert.equal(replayFails(ended({ kind: 'waiting', on: 'signal "go"' }), 'waiting'), false)
  assert.equal(
    replayFails(ended({ kind: 'new-code', what: 'local "x"', seq: 5 }), 'waiting'),
    false,
  )
})

void test('the line says the ending, and the recorded one when they differ', () => {
  const same = replayLine('h.json', ended({ kind: 'finished', status: 'completed' }), 'completed')
  assert.match(
    same,
    /h\.json: checkout v1, run r1: 4 recorded position\(s\) replayed; the run completed as recorded/,
  )
  const differs = replayLine('h.json', ended({ kind: 'finished', status: 'failed' }), 'waiting')
  assert.match(differs, /the run failed on the current code; the history recorded it waiting/)
  assert.doesNotMatch(differs, /as recorded/)
})
