/**
 * docs/flow-control.md's "Debounced and batched starts", runnable: a burst of changes to one
 * product starts one re-index (the last change's payload), and seven signups with batches of
 * three start three digests — two full at once, the last when its window ends.
 */
import assert from 'node:assert/strict'
import { Engine, MemoryStore, silentLogger } from '@cairn/core'

const engine = new Engine({ store: new MemoryStore(), logger: silentLogger })
const reindexed: unknown[] = []
const digests: unknown[][] = []
engine.register(
  'reindex',
  1,
  async (ctx, product: { sku: string; price: number }) =>
    ctx.localStep('reindex', () => reindexed.push(product)),
  {
    onEvent: [
      {
        name: 'product.changed',
        batch: { mode: 'debounce', windowMs: 100, key: (p) => (p as { sku: string }).sku },
      },
    ],
  },
)
engine.register(
  'digest',
  1,
  async (ctx, signups: unknown[]) => ctx.localStep('send', () => digests.push(signups)),
  {
    onEvent: ['user.signed_up'],
    eventBatch: { mode: 'batch', maxSize: 3, windowMs: 200 },
  },
)
await engine.startDriving()

for (const price of [10, 11, 12]) await engine.publishEvent('product.changed', { sku: 'A', price })
for (let i = 1; i <= 7; i++) {
  const { batched } = await engine.publishEvent('user.signed_up', { user: i })
  assert.equal(batched[0]?.size, ((i - 1) % 3) + 1, 'the accumulator grows, then a new one opens')
}

const until = async (check: () => boolean) => {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 10))
}
await until(() => reindexed.length === 1 && digests.length === 3)
await engine.close()

assert.deepEqual(reindexed, [{ sku: 'A', price: 12 }], 'one re-index, the last payload')
const sizes = digests.map((d) => d.length).sort()
assert.deepEqual(sizes, [1, 3, 3], 'two full batches and the rest')
console.log(`re-indexed once: ${JSON.stringify(reindexed[0])}; digests of ${sizes.join(', ')}`)
