/**
 * The demo's workflow: an order that reserves, charges, waits a little, ships and notifies.
 * Every step body writes one line to an effect ledger outside the engine, so the demo can
 * show afterwards which bodies ran, and that none ran again once its result was recorded.
 */
import { appendFileSync } from 'node:fs'
import { randomUUID } from 'node:crypto'
import type { Engine, WorkflowContext } from '@cairn/core'

export const STEPS = ['reserve-stock', 'charge-card', 'pack', 'ship', 'notify'] as const

export function registerOrderWorkflow(engine: Engine, ledger: string): void {
  engine.register('order', 1, async (ctx: WorkflowContext, order: { id: number }) => {
    const receipts: string[] = []
    for (const [index, name] of STEPS.entries()) {
      receipts.push(await ctx.localStep(name, () => effect(ledger, ctx.runId, name)))
      if (index === 1) await ctx.sleep(300 + (order.id % 4) * 100) // wait for the payment to settle
    }
    return receipts
  })
}

// The side effect happens first (the ledger line), then 20 ms of "I/O" before the step returns:
// a crash in between re-runs the body, which is what at-least-once side effects means.
async function effect(ledger: string, runId: string, step: string): Promise<string> {
  const receipt = randomUUID()
  appendFileSync(ledger, `${runId} ${step} ${receipt}\n`)
  await new Promise((resolve) => setTimeout(resolve, 20))
  return receipt
}
