/**
 * What a suspend records as the names that wake its run (SuspendRunOp.wakeOn): the message each
 * open wait takes, once, and always the compensating cancel; timers name none; past 4,096
 * characters of names, nothing (null: every message wakes the run — correct, only slower).
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { wakeOnOf } from '../src/execution/wake_names.ts'
import { CANCEL_SIGNAL } from '../src/execution/wait_names.ts'

void test('the names the waits take, each once, and the cancel; timers add none', () => {
  const waits = [{ message: 'go' }, {}, { message: 'cairn:child:3' }, { message: 'go' }]
  assert.deepEqual(wakeOnOf(waits), [CANCEL_SIGNAL, 'go', 'cairn:child:3'])
  assert.deepEqual(wakeOnOf([{}]), [CANCEL_SIGNAL], 'a sleep alone: only a cancel wakes it')
})

void test('past 4,096 characters of names, no list: every message wakes the run', () => {
  const name = (i: number) => `signal-${String(i).padStart(3, '0')}-${'x'.repeat(188)}` // 199 characters
  const fits = Array.from({ length: 20 }, (_, i) => ({ message: name(i) })) // 20 × 200 + the cancel's 12: 4,012
  assert.equal(wakeOnOf(fits)?.length, 21)
  assert.equal(wakeOnOf([...fits, { message: name(20) }]), null)
})
