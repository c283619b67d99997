/**
 * The nightly cleanup: every night at 03:00 shop time, close the orders left open because their
 * checkout ended without saying how — an operator cancelled it, or it went `dead` after
 * crashing its process over and over. Such an order would otherwise read "placed" or "awaiting
 * approval" forever. An order whose checkout is still live (a long approval wait) is left alone:
 * the run owns it.
 *
 * Fired by whichever process drives runs, exactly once a night (docs/schedules.md); a night
 * whose sweep is still running when the next one comes is skipped. The sweep is one step: a
 * replay after a crash does not close an order twice (closing is idempotent anyway).
 */
import { inject } from '@adonisjs/core'
import { BaseWorkflow } from '@cairn/adonis'
import durable from '@cairn/adonis/services/main'
import type { WorkflowContext } from '@cairn/core'
import Orders from '#services/orders'
import shopConfig from '#config/shop'

export interface AbandonedOrdersResult {
  closed: string[]
}

/** Orders looked at per night: the rest wait for the next one. */
const SWEEP_LIMIT = 500

/** Endings after which a checkout will never update its order again. */
const ENDED_SILENTLY = new Set(['cancelled', 'dead'])

@inject()
export default class AbandonedOrdersWorkflow extends BaseWorkflow<null, AbandonedOrdersResult> {
  static workflow = { name: 'abandoned-orders', version: 1 }
  static schedule = {
    cron: '0 3 * * *',
    timezone: 'Europe/Paris',
    overlap: 'skip' as const,
  }

  #orders: Orders

  constructor(orders: Orders) {
    super()
    this.#orders = orders
  }

  override async run(ctx: WorkflowContext): Promise<AbandonedOrdersResult> {
    const before = new Date(ctx.now().getTime() - shopConfig.abandonAfterMs)
    const closed = await ctx.localStep('close-abandoned', async () => {
      const ids: string[] = []
      for (const order of await this.#orders.stale(before, SWEEP_LIMIT)) {
        const run = await durable.getRun(order.runId)
        if (run !== null && !ENDED_SILENTLY.has(run.status)) continue
        const how = run === null ? 'it has no checkout run' : `its checkout ended ${run.status}`
        await this.#orders.markFailed(order.id, `abandoned: ${how}`)
        ids.push(order.id)
      }
      return ids
    })
    return { closed }
  }
}
