/**
 * The fleet as blocked runs see it (engine/fleet_view.ts): what no live worker offers, in each
 * case an operator must tell apart, and "cannot tell" — never blocked — before the first read
 * and once the reads have kept failing past FLEET_TRUST_MS.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  FLEET_REFRESH_MS,
  FLEET_TRUST_MS,
  FleetView,
  missingFor,
} from '../src/engine/fleet_view.ts'
import type { WorkerInfo } from '../src/engine/worker_views.ts'
import { FakeClock } from '../src/testing/fake_clock.ts'

function worker(overrides: Partial<WorkerInfo> = {}): WorkerInfo {
  return {
    transport: 'db',
    workerId: 'w1',
    host: 'h',
    pid: 1,
    runtime: 'node 24',
    steps: ['render'],
    capabilities: [],
    concurrency: { mode: 'fixed', limit: 1 },
    inFlight: 0,
    startedAt: 0,
    lastSeenAt: 0,
    protocols: [1],
    protocol: 1,
    ...overrides,
  }
}

const silent = { debug() {}, info() {}, warn() {}, error() {} }

void test('missingFor names what is missing, in the order an operator checks it', () => {
  assert.equal(missingFor('db', [], 'render', []), 'no live worker on transport "db"')
  assert.equal(
    missingFor('db', [worker({ protocols: [7, 9], protocol: null })], 'render', []),
    `no live worker on "db" speaks this engine's protocol (they speak 7, 9)`,
  )
  assert.equal(
    missingFor('db', [worker({ steps: ['ship'] })], 'render', []),
    'no live worker on "db" runs step "render"',
  )
  assert.equal(
    missingFor('db', [worker({ capabilities: ['pdf'] })], 'render', ['gpu', 'pdf']),
    'no live worker running "render" on "db" offers gpu',
  )
  const split = [
    worker({ capabilities: ['gpu'] }),
    worker({ workerId: 'w2', capabilities: ['pdf'] }),
  ]
  assert.equal(
    missingFor('db', split, 'render', ['gpu', 'pdf']),
    'no single live worker running "render" on "db" offers all of gpu, pdf',
  )
  assert.equal(
    missingFor('db', [worker({ capabilities: ['pdf', 'gpu'] })], 'render', ['gpu', 'pdf']),
    null,
  )
  // An incompatible worker with every capability does not count; a compatible one does.
  const mixed = [worker({ capabilities: ['gpu'], protocol: null }), worker({ workerId: 'w2' })]
  assert.equal(
    missingFor('db', mixed, 'render', ['gpu']),
    'no live worker running "render" on "db" offers gpu',
  )
  assert.equal(missingFor('db', mixed, 'render', []), null)
})

void test('FleetView: cannot tell before a read, tells after, and stops telling when reads keep failing', async () => {
  const clock = new FakeClock()
  let answer: () => Promise<WorkerInfo[] | null> = () => Promise.resolve([])
  const view = new FleetView(
    () => answer(),
    clock,
    () => clock.monotonic(),
    silent,
  )
  assert.equal(view.blockedReason('db', 'render', []), null, 'no read yet: cannot tell')
  view.start(['db'])
  await view.refresh('db')
  assert.equal(view.blockedReason('db', 'render', []), 'no live worker on transport "db"')
  assert.equal(view.blockedReason('other', 'render', []), null, 'a transport never read')
  answer = () => Promise.reject(new Error('down'))
  await clock.advance(FLEET_TRUST_MS - FLEET_REFRESH_MS)
  assert.notEqual(view.blockedReason('db', 'render', []), null, 'a recent read still counts')
  await clock.advance(FLEET_REFRESH_MS)
  assert.equal(view.blockedReason('db', 'render', []), null, 'reads failing past the trust window')
  answer = () => Promise.resolve([worker()])
  await clock.advance(FLEET_REFRESH_MS)
  await view.refresh('db')
  assert.equal(view.blockedReason('db', 'render', []), null, 'a worker serves it')
  view.stop()
  assert.equal(view.blockedReason('db', 'render', []), null, 'stopped: every read forgotten')
})
