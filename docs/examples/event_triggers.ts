/**
 * docs/flow-control.md's event-triggered starts, runnable: a signup event starts a welcome run
 * for every user and an onboarding call for pro plans only; product changes start one re-index
 * run per product (a derived run id), however many changes arrive. A publish retried with its
 * event id starts nothing twice.
 */
import assert from 'node:assert/strict'
import { Engine, MemoryStore, silentLogger } from '@cairn/core'

interface Signup {
  userId: string
  plan: 'free' | 'pro'
}

const engine = new Engine({ store: new MemoryStore(), logger: silentLogger })
engine.register(
  'welcome',
  1,
  async (ctx, user: Signup) => ctx.localStep('email', () => `welcome ${user.userId}`),
  { onEvent: ['user.signed_up'] },
)
engine.register(
  'onboarding-call',
  1,
  async (ctx, user: Signup) => ctx.localStep('book', () => `call ${user.userId}`),
  { onEvent: [{ name: 'user.signed_up', match: { plan: 'pro' } }] },
)
engine.register('reindex', 1, async (_ctx, product: { sku: string }) => `indexed ${product.sku}`, {
  onEvent: [{ name: 'product.changed', runId: (p) => `reindex-${(p as { sku: string }).sku}` }],
})
await engine.startDriving()

const free = await engine.publishEvent('user.signed_up', { userId: 'u1', plan: 'free' })
const pro = await engine.publishEvent(
  'user.signed_up',
  { userId: 'u2', plan: 'pro' },
  { eventId: 'signup-u2' },
)
console.log(free.started, pro.started)
assert.deepEqual(
  pro.started.map((s) => `${s.workflow} ${s.runId} ${s.status}`),
  [
    'welcome evt:welcome:signup-u2 started',
    'onboarding-call evt:onboarding-call:signup-u2 started',
  ],
)
// The same publish again (a retry after a lost answer): nothing new.
const retried = await engine.publishEvent(
  'user.signed_up',
  { userId: 'u2', plan: 'pro' },
  { eventId: 'signup-u2' },
)
assert.deepEqual(
  retried.started.map((s) => s.status),
  ['existing', 'existing'],
)

for (const version of [1, 2, 3])
  await engine.publishEvent('product.changed', { sku: 'mug', version })
const reindex = await engine.waitForRun('reindex-mug', { timeoutMs: 5_000 })
assert.deepEqual(reindex, { runId: 'reindex-mug', status: 'completed', output: 'indexed mug' })

const { runs } = await engine.listRuns({ workflow: 'welcome' })
assert.equal(runs.length, 2, 'one welcome per signup event')
assert.equal((await engine.listRuns({ workflow: 'onboarding-call' })).runs.length, 1)
assert.equal((await engine.listRuns({ workflow: 'reindex' })).runs.length, 1)
await engine.close()
console.log('welcome runs:', runs.map((run) => run.id).join(', '))
