/**
 * listRuns cursors are handed to clients (the dashboard, `cairn runs`, scripts) and come back
 * later, possibly from before an upgrade: a cursor an earlier release issued must still page
 * the same list. The literal below was made by the release before lists had an order.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { decodeCursor, encodeCursor } from '@cairn/core/store-kit'

const POSITION = { createdAt: 1_700_000_000_123, id: 'run-ä/1' }
const ISSUED_BEFORE_ORDERS = 'WzE3MDAwMDAwMDAxMjMsInJ1bi3DpC8xIiwiNlQ3RUpvNzBGZFMzIl0'

void test('a newest-first cursor is written as earlier releases wrote it, and theirs still decode', () => {
  assert.equal(encodeCursor(POSITION), ISSUED_BEFORE_ORDERS)
  assert.equal(encodeCursor(POSITION, 'newest'), ISSUED_BEFORE_ORDERS)
  assert.deepEqual(decodeCursor(ISSUED_BEFORE_ORDERS), POSITION)
  assert.deepEqual(decodeCursor(ISSUED_BEFORE_ORDERS, 'newest'), POSITION)
})

void test('an oldest-first cursor round-trips and is refused by a newest-first list, and back', () => {
  const oldest = encodeCursor(POSITION, 'oldest')
  assert.notEqual(oldest, ISSUED_BEFORE_ORDERS)
  assert.deepEqual(decodeCursor(oldest, 'oldest'), POSITION)
  assert.throws(() => decodeCursor(oldest, 'newest'), { code: 'E_INVALID_CURSOR' })
  assert.throws(() => decodeCursor(ISSUED_BEFORE_ORDERS, 'oldest'), { code: 'E_INVALID_CURSOR' })
})

void test('an altered cursor is refused, not paged from elsewhere', () => {
  const altered = ISSUED_BEFORE_ORDERS.slice(0, -2) + 'xx'
  assert.throws(() => decodeCursor(altered), { code: 'E_INVALID_CURSOR' })
})
