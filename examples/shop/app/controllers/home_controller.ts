import type { HttpContext } from '@adonisjs/core/http'
import db from '@adonisjs/lucid/services/db'
import shopConfig from '#config/shop'

/** GET /: what the shop sells and what to try, as curl lines for this server's address. */
export default class HomeController {
  async index({ request }: HttpContext) {
    const url = `${request.protocol()}://${request.host()}`
    const products = await db.from('products').orderBy('price_cents')
    const order = (body: string) =>
      `curl -X POST ${url}/orders -H 'content-type: application/json' -d '${body}'`
    return {
      shop: 'Cairn example shop: each order is a durable checkout workflow (docs/examples/shop.md)',
      products: products.map((p) => ({
        sku: p.sku,
        name: p.name,
        priceCents: Number(p.price_cents),
        stock: Number(p.stock),
        ships: Boolean(p.can_ship),
      })),
      approvalThresholdCents: shopConfig.approvalThresholdCents,
      try: [
        {
          what: 'an order that completes: reserve stock, charge, ship',
          curl: order('{"sku":"mug","quantity":2,"card":"4242424242424242"}'),
        },
        {
          what: 'a declined card: the run fails at charge-card and the stock is released',
          curl: order('{"sku":"mug","quantity":1,"card":"4000000000000002"}'),
        },
        {
          what: 'a product the carrier refuses: the run fails at ship, the card is refunded and the stock released',
          curl: order('{"sku":"vase","quantity":1,"card":"4242424242424242"}'),
        },
        {
          what: 'an order above the approval threshold: it waits for a manager',
          curl: order('{"sku":"espresso","quantity":1,"card":"4242424242424242"}'),
        },
        {
          what: "one checkout per cart: while a cart's order waits for approval, another order of that cart is refused (409 E_CART_BUSY)",
          curl: order(
            '{"sku":"espresso","quantity":1,"card":"4242424242424242","cartId":"cart-7"}',
          ),
        },
        {
          what: 'approve it (it ships) or reject it (refund, stock released)',
          curl: `curl -X POST ${url}/orders/<orderId>/approve   # or /reject`,
        },
        {
          what: "follow an order: its status, its run, payments, stock, shipment; then the run's steps",
          curl: `curl ${url}/orders/<orderId>   # and ${url}/orders/<orderId>/timeline`,
        },
        {
          what: "after it shipped, wait for the carrier's delivery callback (a webhook): its address is the run's request-delivery-callback step result, in the dashboard",
          curl: `curl -X POST ${url}/orders/<orderId>/delivery`,
        },
        {
          what: 'play the carrier: deliver it (202 once; any other or used token: 404)',
          curl: `curl -X POST <callbackUrl> -H 'content-type: application/json' -d '{"deliveredAt":"2026-03-01T10:00:00Z","signedBy":"Ada"}'`,
        },
        {
          what: "the delivery run's published state: stage, then proof-of-delivery",
          curl: `curl ${url}/durable/api/runs/delivery-<orderId>/events/stage`,
        },
      ],
    }
  }
}
