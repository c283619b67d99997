/** docs/webhooks.md's example, runnable: a payment link whose provider calls back. */
import assert from 'node:assert/strict'
import { webhookHttpResponse } from '@cairn/core'
import { createTestEngine } from '@cairn/core/testing'

const t = await createTestEngine({ webhookUrl: 'https://shop.example.com/durable/webhooks' })
const sentLinks: string[] = []
t.engine.register('checkout', 1, async (ctx, amount: number) => {
  const hook = await ctx.webhook()
  await ctx.localStep('create-payment', () => sentLinks.push(`pay ${amount} → notify ${hook.url}`))
  const result = await hook.wait<{ status: string }>({ timeoutMs: 24 * 3_600_000 })
  return result.status
})

const { runId } = await t.engine.start('checkout', 42)
await t.skipTime('1m')
// The provider POSTs to the URL; a route hands the token and the parsed body to the engine:
const token = decodeURIComponent(sentLinks[0]!.split('/').at(-1)!)
const http = webhookHttpResponse(await t.engine.receiveWebhook(token, { status: 'paid' }))
assert.equal(http.status, 202)
assert.deepEqual(await t.engine.waitForRun(runId), { runId, status: 'completed', output: 'paid' })
await t.close()
console.log(`callback accepted with HTTP ${http.status}; the checkout saw it`)
