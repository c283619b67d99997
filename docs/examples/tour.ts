/**
 * The README's tour, runnable: `node docs/examples/tour.ts` (tests/docs runs it).
 * Uses a temporary SQLite file and short sleeps so it finishes in a moment.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Engine, FatalError, silentLogger } from '@cairn/core'
import { SqliteStore } from '@cairn/sql/sqlite'

const dir = mkdtempSync(join(tmpdir(), 'cairn-tour-'))
const engine = new Engine({
  store: new SqliteStore({ path: join(dir, 'cairn.db') }),
  instanceId: 'worker-1',
  logger: silentLogger,
})

const stock = new Map([['o-1', 3]])
const reserveStock = (id: string) => `reservation-${id}-${stock.get(id) ?? 0}`
let chargeAttempts = 0
const chargeCard = (order: { id: string; total: number }) => {
  if (++chargeAttempts < 2) throw new Error('card network timeout') // retried
  if (order.total <= 0) throw new FatalError('nothing to charge') // never retried
  return { chargeId: `ch-${order.id}`, amount: order.total }
}
const sendReceipt = (id: string) => `receipt-${id}`

engine.register('checkout', 1, async (ctx, order: { id: string; total: number }) => {
  const reservation = await ctx.localStep('reserve', () => reserveStock(order.id))
  const charge = await ctx.localStep('charge', () => chargeCard(order), {
    retries: 5,
    backoff: { type: 'exponential', delay: '10ms', maxDelay: '1s' },
  })
  await ctx.sleep('50ms')
  const receipt = ctx.patched('send-receipt')
    ? await ctx.localStep('receipt', () => sendReceipt(order.id))
    : null
  return { reservation, charge, receipt, at: ctx.now() }
})

await engine.startDriving()
const { runId } = await engine.start('checkout', { id: 'o-1', total: 42 }, { runId: 'order-o-1' })
const again = await engine.start('checkout', { id: 'o-1', total: 42 }, { runId: 'order-o-1' })
const outcome = await engine.waitForRun(runId, { timeoutMs: 10_000 })
const steps = await engine.getSteps(runId)
await engine.close()
rmSync(dir, { recursive: true, force: true })

console.log(
  JSON.stringify({
    existing: again.existing,
    status: outcome.status,
    steps: steps.map((s) => `${s.kind}:${s.name}x${s.attempts}`),
  }),
)
if (outcome.status !== 'completed' || !again.existing || steps[1]?.attempts !== 2) process.exit(1)
