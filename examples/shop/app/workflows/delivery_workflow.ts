/**
 * Delivery confirmation: once an order has shipped, ask the carrier to call back when the
 * parcel is delivered, and wait — days if need be, holding no memory — for that callback.
 * The callback address is a `ctx.webhook()`: a one-shot URL under config/durable.ts's
 * `webhookUrl`, whose unguessable token is the carrier's only credential. The run publishes
 * where it stands (`stage`, then the `proof-of-delivery`) for anyone with dashboard access to
 * read at GET /durable/api/runs/:id/events/:key.
 */
import { inject } from '@adonisjs/core'
import { BaseWorkflow } from '@cairn/adonis'
import type { WorkflowContext } from '@cairn/core'
import Carrier from '#services/carrier'

export interface DeliveryInput {
  orderId: string
}

/** What the carrier posts to the callback address. */
export interface ProofOfDelivery {
  deliveredAt: string
  signedBy: string
}

const TWO_WEEKS_MS = 14 * 24 * 3_600_000

@inject()
export default class DeliveryWorkflow extends BaseWorkflow<DeliveryInput, ProofOfDelivery> {
  static workflow = { name: 'delivery', version: 1 }

  #carrier: Carrier

  constructor(carrier: Carrier) {
    super()
    this.#carrier = carrier
  }

  override async run(ctx: WorkflowContext, { orderId }: DeliveryInput): Promise<ProofOfDelivery> {
    const trackingNumber = await ctx.localStep('find-shipment', () =>
      this.#carrier.trackingNumberOf(orderId),
    )
    const hook = await ctx.webhook()
    await ctx.localStep('request-delivery-callback', () =>
      this.#carrier.requestDeliveryCallback(trackingNumber, hook.url),
    )
    await ctx.setEvent('stage', 'in transit')
    const proof = await hook.wait<ProofOfDelivery>({ timeoutMs: TWO_WEEKS_MS })
    await ctx.setEvent('proof-of-delivery', proof)
    await ctx.setEvent('stage', 'delivered')
    return proof
  }
}
