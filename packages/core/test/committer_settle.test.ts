/**
 * Committer.settle(stallMs) as close uses it: it waits while the store takes batches, gives up
 * once none has committed for `stallMs` (a store that stays down), and a batch that fails after
 * close rejects its writers instead of waiting forever. Stores are a MemoryStore behind a
 * wrapper that delays or fails batches on cue.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Committer } from '../src/engine/committer.ts'
import { MemoryStore } from '../src/store/index.ts'
import { silentLogger } from '../src/engine/default_logger.ts'
import { systemClock } from '../src/clock/system_clock.ts'
import type { OpResult, StateStore, StoreOp } from '../src/contracts/state_store.ts'

/** A store whose batches each take `delayMs`, and fail while `down`. */
function slowStore(delayMs: number): { store: StateStore; down: boolean; batches: number } {
  const inner = new MemoryStore()
  const state = { store: inner as StateStore, down: false, batches: 0 }
  state.store = new Proxy(inner, {
    get(target, key, receiver) {
      if (key !== 'applyBatch') return Reflect.get(target, key, receiver) as unknown
      return async (ops: readonly StoreOp[], now: number): Promise<OpResult[]> => {
        await new Promise((resolve) => setTimeout(resolve, delayMs))
        if (state.down) throw new Error('injected: store unavailable')
        state.batches += 1
        return target.applyBatch(ops, now)
      }
    },
  })
  return state
}

const create = (id: string) => ({
  type: 'createRun' as const,
  run: { id, workflow: 'w', version: '1', input: '{}', createdAt: 0 },
})

function committerOn(store: StateStore): Committer {
  return new Committer({ store, clock: systemClock, logger: silentLogger, maxBatch: 1 })
}

void test('settle waits for a slow store that keeps taking batches, past the stall limit', async () => {
  // Ten batches of 30 ms each: 300 ms in all, with a stall limit of 100 ms between them.
  const slow = slowStore(30)
  const committer = committerOn(slow.store)
  const writes = Array.from({ length: 10 }, (_, i) => committer.enqueue(create(`r${i}`)))
  assert.equal(await committer.settle(100), true)
  assert.equal(slow.batches, 10)
  await Promise.all(writes)
})

void test('settle gives up on a store that takes nothing for the stall limit', async () => {
  const slow = slowStore(1)
  slow.down = true
  const committer = committerOn(slow.store)
  const write = committer.enqueue(create('r1'))
  // Without the limit these would never return (the write is retried forever).
  assert.equal(await committer.settle(200), false)
  assert.equal(await committer.settle(200), false)
  committer.close()
  await assert.rejects(write, { code: 'E_ENGINE_STOPPED' })
})

void test('a batch that fails after close rejects its writers; nothing is retried behind a closed committer', async () => {
  const slow = slowStore(100)
  slow.down = true
  const committer = committerOn(slow.store)
  const write = committer.enqueue(create('r1')) // in flight for 100 ms, then fails
  const rejected = assert.rejects(write, { code: 'E_ENGINE_STOPPED' })
  await new Promise((resolve) => setTimeout(resolve, 20))
  committer.close()
  await rejected
  assert.equal(committer.backlog, 0)
})

void test('a stall limit beyond a timer delay neither warns nor spins', async () => {
  const slow = slowStore(1)
  slow.down = true
  const committer = committerOn(slow.store)
  const warnings: string[] = []
  const onWarning = (warning: Error) => warnings.push(warning.name)
  process.on('warning', onWarning)
  const write = committer.enqueue(create('r1'))
  const settled = committer.settle(2 ** 40)
  const rejected = assert.rejects(write, { code: 'E_ENGINE_STOPPED' })
  await new Promise((resolve) => setTimeout(resolve, 300))
  committer.close()
  assert.equal(await settled, true, 'close rejected the write: nothing is left')
  await rejected
  process.off('warning', onWarning)
  assert.deepEqual(warnings, [])
})
