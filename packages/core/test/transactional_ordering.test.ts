/** What keeps a transactional step's outcome in delivery order: DeliveryHold and Committer.afterQueued. */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { DeliveryHold } from '../src/execution/delivery_hold.ts'
import { Committer } from '../src/engine/committer.ts'
import { MemoryStore } from '../src/store/index.ts'
import { silentLogger } from '../src/engine/default_logger.ts'
import { systemClock } from '../src/clock/system_clock.ts'

void test('outcomes recorded after a transactional one wait for it, then go in order', () => {
  const hold = new DeliveryHold()
  const delivered: number[] = []
  const deliver = (order: number) => hold.deliver(order, () => delivered.push(order))
  deliver(1)
  hold.reserve(2)
  deliver(4)
  deliver(3)
  assert.deepEqual(delivered, [1], 'later outcomes wait for order 2')
  deliver(2)
  hold.release(2)
  assert.deepEqual(delivered, [1, 2, 3, 4])
  assert.equal(hold.idle, true)
})

void test('a released order that delivered nothing (rolled back) lets the others go', () => {
  const hold = new DeliveryHold()
  const delivered: number[] = []
  hold.reserve(5)
  hold.reserve(7)
  hold.deliver(6, () => delivered.push(6))
  hold.deliver(8, () => delivered.push(8))
  hold.release(7)
  assert.deepEqual(delivered, [], 'order 5 still holds both')
  hold.release(5)
  assert.deepEqual(delivered, [6, 8])
})

void test('afterQueued waits for every write queued before it, and only those', async () => {
  const committer = new Committer({
    store: new MemoryStore(),
    clock: systemClock,
    logger: silentLogger,
    maxBatch: 1, // one write per batch: the barrier must wait for both batches
  })
  const events: string[] = []
  const run = (id: string) => ({
    type: 'createRun' as const,
    run: { id, workflow: 'w', version: '1', input: '{}', createdAt: 0 },
  })
  const first = committer.enqueue(run('a')).then(() => events.push('a'))
  const second = committer.enqueue(run('b')).then(() => events.push('b'))
  const barrier = new Promise<void>((resolve) => committer.afterQueued(resolve)).then(() =>
    events.push('barrier'),
  )
  const later = committer.enqueue(run('c')).then(() => events.push('c'))
  await Promise.all([first, second, barrier, later])
  assert.ok(events.indexOf('barrier') > events.indexOf('b'), events.join(' '))
  let immediate = false
  await committer.settle()
  committer.afterQueued(() => (immediate = true))
  assert.equal(immediate, true, 'nothing queued: at once')
})
