/**
 * EventBatchFirer's timing against a store that answers as a busy fleet's would: a `nextAt`
 * already past (an accumulator another claimer or an append holds locked) is looked at again
 * shortly — never dropped, never in a hot loop — and a stop ends the claiming.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { MemoryStore, silentLogger } from '../src/index.ts'
import type { ClaimedEventBatches, ClaimEventBatchesRequest } from '../src/contracts/index.ts'
import { EventBatchFirer } from '../src/engine/event_batch_firer.ts'
import { resolveEngineOptions } from '../src/engine/options.ts'
import { FakeClock } from '../src/testing/fake_clock.ts'

let started = 0

function firerWith(answer: (request: ClaimEventBatchesRequest) => ClaimedEventBatches) {
  const clock = new FakeClock()
  const claims: number[] = []
  const store = new MemoryStore()
  store.claimEventBatches = async (request) => {
    claims.push(request.now)
    return answer(request)
  }
  const options = resolveEngineOptions({ store, clock, logger: silentLogger })
  const firer = new EventBatchFirer({
    options,
    workflows: () => ['digest'],
    start: async () => (started++, { runId: 'r', existing: false }),
  })
  return { clock, claims, firer }
}

void test('a nextAt already past is claimed again shortly, not never and not in a loop', async () => {
  const { clock, claims, firer } = firerWith((r) => ({ claimed: [], nextAt: r.now - 1 }))
  const t0 = clock.now()
  firer.start()
  await clock.advance(0)
  assert.deepEqual(claims, [t0], 'one claim at start')
  await clock.advance(10)
  assert.equal(claims.length, 1, 'no hot loop on a past nextAt')
  await clock.advance(100)
  assert.ok(claims.length >= 2, 'claimed again a moment later')
  assert.ok(claims.length <= 4, `a few claims in 110 ms, not a spin (got ${claims.length})`)
  firer.stop()
})

void test('a stop during a claim ends the claiming, and no timer is set after it', async () => {
  let firer: EventBatchFirer | null = null
  const {
    clock,
    claims,
    firer: f,
  } = firerWith((r) => {
    firer?.stop() // a drain begins while this claim is in flight
    // A full claim: were the stop not heeded, the firer would claim again at once.
    const claimed = Array.from({ length: 20 }, (_, i) => ({
      workflow: 'digest',
      key: '',
      id: `acc-${i}`,
      mode: 'batch' as const,
      payloads: ['1'],
      eventIds: [`e${i}`],
      firstAt: r.now,
      dueAt: r.now,
    }))
    return { claimed, nextAt: r.now + 10 }
  })
  firer = f
  f.start()
  await clock.advance(0)
  await clock.advance(60_000)
  assert.equal(claims.length, 1, 'nothing claimed after the stop')
  assert.equal(started, 20, 'what it had claimed was started (a drain waits for it)')
})
