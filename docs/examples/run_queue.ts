/**
 * docs/flow-control.md's "Whole runs on a queue", runnable: five catalogue imports on a queue
 * of two. Each import holds its slot from before its first step until it ends — through the
 * wait for its go-ahead — so at most two are under way; the others wait, visible as waiting
 * on the queue, and start as slots free. A re-index started with a higher priority goes first.
 */
import assert from 'node:assert/strict'
import { Engine, MemoryStore, silentLogger } from '@cairn/core'

let underWay = 0
let most = 0
const began: string[] = []

const engine = new Engine({ store: new MemoryStore(), logger: silentLogger })
engine.registerQueue('imports', { concurrency: 2 })
engine.registerStep('begin', (name: string) => {
  underWay += 1
  most = Math.max(most, underWay)
  began.push(name)
  return name
})
engine.registerStep('finish', (name: string) => {
  underWay -= 1
  return `imported ${name}`
})
// Every run of `import` is on the queue; it waits for a go-ahead signal while holding its slot.
engine.register(
  'import',
  1,
  async (ctx, name: string) => {
    await ctx.step('begin', name)
    await ctx.waitForSignal('go')
    return ctx.step('finish', name)
  },
  { queue: 'imports' },
)
await engine.startDriving()

const runs = new Map<string, string>()
for (const name of ['shoes', 'hats', 'socks', 'belts']) {
  runs.set(name, (await engine.start('import', name)).runId)
}
// One start may name its own place in line (or its own queue: { queue }).
runs.set('reindex', (await engine.start('import', 'reindex', { priority: 10 })).runId)

// Two imports began; three wait for a slot (held in memory a moment, then suspended).
while (
  began.length < 2 ||
  (await engine.store.queueStats(['imports'], Date.now()))[0]?.waiting !== 3
)
  await new Promise((resolve) => setTimeout(resolve, 1))
assert.deepEqual(began, ['shoes', 'hats'])

// Let each import go in the order they began: every end frees a slot for the next waiter.
for (let i = 0; i < runs.size; i++) {
  while (began.length <= i) await new Promise((resolve) => setTimeout(resolve, 1))
  const runId = runs.get(began[i] as string) as string
  await engine.signal({ runId, name: 'go' }, null)
  assert.equal((await engine.waitForRun(runId, { timeoutMs: 10_000 })).status, 'completed')
}
await engine.close()

assert.equal(most, 2, 'never more than two imports under way')
assert.deepEqual(began, ['shoes', 'hats', 'reindex', 'socks', 'belts'], 'priority, then arrival')
console.log(`imports, in the order they began: ${began.join(', ')}`)
