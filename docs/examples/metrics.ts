/** docs/metrics.md's example, runnable: an engine's Prometheus metrics, scraped. */
import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import { createTestEngine } from '@cairn/core/testing'
import { createMetrics } from '@cairn/dashboard/metrics'

const t = await createTestEngine()
t.engine.register('checkout', 1, async (ctx, order: string) => {
  await ctx.localStep('charge', () => `charged ${order}`)
  return 'done'
})
const metrics = createMetrics(t.engine)

// Any HTTP server will do; the dashboard mounts the same thing at <base>/metrics.
const server = createServer((_, res) => {
  void metrics
    .render()
    .then((text) => res.writeHead(200, { 'content-type': metrics.contentType }).end(text))
})
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
const { port } = server.address() as { port: number }

const { runId } = await t.engine.start('checkout', 'order-1')
await t.engine.waitForRun(runId)
const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()
assert.match(text, /^cairn_runs_completed_total\{workflow="checkout"\} 1$/m)
assert.match(
  text,
  /^cairn_step_duration_seconds_count\{workflow="checkout",step="charge",outcome="completed"\} 1$/m,
)
assert.match(text, /^cairn_runs_pending 0$/m)

server.close()
metrics.close()
await t.close()
console.log(
  text
    .split('\n')
    .filter((line) => line.startsWith('cairn_runs_'))
    .join('\n'),
)
