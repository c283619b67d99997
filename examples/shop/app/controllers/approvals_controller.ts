import { inject } from '@adonisjs/core'
import type { HttpContext } from '@adonisjs/core/http'
import durable from '@cairn/adonis/services/main'
import { RunNotFoundError, RunTerminalError } from '@cairn/core'
import {
  E_ALREADY_DECIDED,
  E_NO_APPROVAL_NEEDED,
  E_ORDER_CLOSED,
  E_ORDER_NOT_FOUND,
  E_ORDER_WITHOUT_RUN,
} from '#exceptions/shop_errors'
import Orders from '#services/orders'
import { decisionValidator } from '#validators/order_validators'
import { APPROVAL_SIGNAL, type ApprovalDecision } from '#workflows/checkout_workflow'

/**
 * POST /orders/:id/approve and /reject: a manager's decision, sent to the checkout run as a
 * signal. A decision sent before the run reaches its wait is kept until it gets there.
 */
@inject()
export default class ApprovalsController {
  #orders: Orders

  constructor(orders: Orders) {
    this.#orders = orders
  }

  async approve(ctx: HttpContext) {
    return this.#decide(ctx, true)
  }

  async reject(ctx: HttpContext) {
    return this.#decide(ctx, false)
  }

  async #decide({ params, request, response }: HttpContext, approved: boolean) {
    const { by = 'manager' } = await request.validateUsing(decisionValidator)
    const id = String(params.id)
    const order = await this.#orders.find(id)
    if (order === null) throw new E_ORDER_NOT_FOUND([id])
    if (!order.needsApproval) throw new E_NO_APPROVAL_NEEDED([id])
    const decision: ApprovalDecision = { approved, by }
    let receipt
    try {
      // One signal id for both answers: the first decision wins, a second is a duplicate.
      receipt = await durable.signal({ runId: order.runId, name: APPROVAL_SIGNAL }, decision, {
        signalId: 'manager-decision',
      })
    } catch (error) {
      if (RunTerminalError.is(error)) throw new E_ORDER_CLOSED([id])
      // The order row is written before its run is started (see docs/examples/shop.md).
      if (RunNotFoundError.is(error)) throw new E_ORDER_WITHOUT_RUN([id])
      throw error
    }
    if (receipt.duplicate) throw new E_ALREADY_DECIDED([id])
    return response.accepted({ orderId: id, decision: approved ? 'approved' : 'rejected', by })
  }
}
