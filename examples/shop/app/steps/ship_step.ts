/** Hands the order to the carrier; shipping an order twice returns the first shipment. */
import { inject } from '@adonisjs/core'
import { BaseStep } from '@cairn/adonis'
import Carrier, { type Shipment } from '#services/carrier'

export interface ShipInput {
  orderId: string
  sku: string
}

@inject()
export default class ShipStep extends BaseStep<ShipInput, Shipment> {
  static step = { name: 'ship' }

  #carrier: Carrier

  constructor(carrier: Carrier) {
    super()
    this.#carrier = carrier
  }

  async run(input: ShipInput): Promise<Shipment> {
    return this.#carrier.ship(input.orderId, input.sku)
  }
}
