import { inject } from '@adonisjs/core'
import type { HttpContext } from '@adonisjs/core/http'
import { E_ORDER_NOT_FOUND } from '#exceptions/shop_errors'
import Orders from '#services/orders'
import DeliveryWorkflow from '#workflows/delivery_workflow'

/**
 * POST /orders/:id/delivery: starts the order's delivery confirmation (202), one per order
 * (asking again answers with the same run). The carrier's callback completes it.
 */
@inject()
export default class DeliveriesController {
  #orders: Orders

  constructor(orders: Orders) {
    this.#orders = orders
  }

  async store({ params, response }: HttpContext) {
    const id = String(params.id)
    if ((await this.#orders.find(id)) === null) throw new E_ORDER_NOT_FOUND([id])
    const { runId, existing } = await DeliveryWorkflow.dispatch(
      { orderId: id },
      { runId: `delivery-${id}` },
    )
    return response.accepted({ orderId: id, runId, existing })
  }
}
