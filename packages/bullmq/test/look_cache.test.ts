/**
 * The worker's look cache: a queue found empty is skipped only until the next wake or the end of
 * a wait, a wake that lands while a fetch is on its way is never lost, and routes are read again
 * when old or when a wake names a queue they do not list.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { LookCache } from '../src/look_cache.ts'

void test('a drained queue is skipped until a wake or the end of a wait', () => {
  const look = new LookCache(1_000)
  look.markEmpty('q', look.generation)
  assert.equal(look.isEmpty('q'), true)
  look.woke('other') // any wake: the publish may have gone to any queue's step
  assert.equal(look.isEmpty('q'), false)
  look.markEmpty('q', look.generation)
  look.expire()
  assert.equal(look.isEmpty('q'), false, 'a wait that ended may have made a delayed task due')
})

void test('a wake that lands while the fetch is on its way leaves the queue to be looked at', () => {
  const look = new LookCache(1_000)
  const before = look.generation // the fetch is sent
  look.woke('q') // a task published (and its wake delivered) before the empty answer came back
  look.markEmpty('q', before)
  assert.equal(look.isEmpty('q'), false)
})

void test('the next due time is kept until a wake, and computed again after', () => {
  const look = new LookCache(1_000)
  look.setNextDue(5_000, look.generation)
  assert.equal(look.nextDue(), 5_000)
  look.woke('q')
  assert.equal(look.nextDue(), null)
})

void test('routes are read again when older than the poll, or when a wake names a new queue', () => {
  const look = new LookCache(1_000)
  assert.equal(look.routes(0), null)
  look.setRoutes({ a: '{}' }, 0)
  assert.deepEqual(look.routes(1_000), { a: '{}' })
  assert.equal(look.routes(1_001), null, 'too old')
  look.setRoutes({ a: '{}' }, 2_000)
  look.woke('a')
  assert.deepEqual(look.routes(2_000), { a: '{}' }, 'a known queue keeps the routes')
  look.woke('b')
  assert.equal(look.routes(2_000), null, 'a queue the routes do not list')
})
