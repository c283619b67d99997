import { inject } from '@adonisjs/core'
import type { HttpContext } from '@adonisjs/core/http'
import durable from '@cairn/adonis/services/main'
import shopConfig from '#config/shop'
import { SingletonFullError } from '@cairn/core'
import { E_CART_BUSY, E_ORDER_NOT_FOUND } from '#exceptions/shop_errors'
import { presentOrder } from '#presenters/order'
import { presentTimeline } from '#presenters/timeline'
import OrderRecordsReader from '#services/order_records'
import Orders, { type Order } from '#services/orders'
import { tokenizeCard } from '#services/payment_gateway'
import { placeOrderValidator } from '#validators/order_validators'
import CheckoutWorkflow from '#workflows/checkout_workflow'

/** An express order's checkout: claimed before standard ones when more are due than slots. */
const EXPRESS_PRIORITY = 100

@inject()
export default class OrdersController {
  #orders: Orders
  #records: OrderRecordsReader

  constructor(orders: Orders, records: OrderRecordsReader) {
    this.#orders = orders
    this.#records = records
  }

  /**
   * POST /orders: prices the order and starts its checkout run, whose first step records the
   * order (202: it goes on in the background). Until that step commits, GET /orders/:id shows
   * the order as `placing`.
   */
  async store({ request, response }: HttpContext) {
    const { sku, quantity, card, cartId, express } =
      await request.validateUsing(placeOrderValidator)
    const order = await this.#orders.draft({ sku, quantity, card })
    const cart = cartId ?? order.id
    const { runId } = await CheckoutWorkflow.dispatch(
      {
        orderId: order.id,
        cartId: cart,
        sku,
        quantity,
        amountCents: order.amountCents,
        // The card number goes to the gateway here and nowhere else; the run gets a token.
        cardToken: tokenizeCard(card),
        cardLast4: order.cardLast4,
        approval: order.needsApproval ? { timeoutMs: shopConfig.approvalTimeoutMs } : null,
      },
      { runId: order.runId, priority: express === true ? EXPRESS_PRIORITY : 0 },
    ).catch((error: unknown) => {
      // Nothing was created: the order was only drafted.
      throw SingletonFullError.is(error) ? new E_CART_BUSY([cart]) : error
    })
    return response.accepted({
      orderId: order.id,
      runId,
      amountCents: order.amountCents,
      needsApproval: order.needsApproval,
      links: { self: `/orders/${order.id}`, timeline: `/orders/${order.id}/timeline` },
    })
  }

  /** GET /orders/:id: the order, its run's status, its payments, stock and shipment. */
  async show({ params }: HttpContext) {
    const placing = await this.#placing(params.id)
    if (placing !== null) return placing
    const { id, runId } = await this.#findOrFail(params.id)
    // The run first, then the order's rows: the run's last transaction step commits before the
    // run ends, so a run read as completed comes with the order it completed — never a torn
    // view where the order still reads `placed` beside a completed run.
    const run = await durable.getRun(runId)
    const [order, records] = await Promise.all([this.#findOrFail(id), this.#records.read(id)])
    return presentOrder(order, run, records)
  }

  /** GET /orders/:id/timeline: the checkout run's recorded steps, in order. */
  async timeline({ params }: HttpContext) {
    const order = await this.#findOrFail(params.id)
    const [run, steps] = await Promise.all([
      durable.getRun(order.runId),
      durable.getSteps(order.runId),
    ])
    return {
      orderId: order.id,
      runId: order.runId,
      runStatus: run?.status ?? null,
      steps: presentTimeline(steps),
    }
  }

  /** An order whose run exists but has not recorded it yet: `placing`, with its run. */
  async #placing(id: unknown) {
    if (typeof id !== 'string' || (await this.#orders.find(id)) !== null) return null
    const run = await durable.getRun(`checkout-${id}`).catch(() => null)
    if (run === null) return null
    return { id, status: 'placing', run: { id: run.id, status: run.status } }
  }

  async #findOrFail(id: unknown): Promise<Order> {
    const order = typeof id === 'string' ? await this.#orders.find(id) : null
    if (order === null) throw new E_ORDER_NOT_FOUND([String(id)])
    return order
  }
}
