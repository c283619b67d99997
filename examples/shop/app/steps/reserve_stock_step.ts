/**
 * Takes the order's stock. The reservation row makes a re-run (after a crash) a no-op, and
 * not enough stock is a FatalError: retrying cannot make stock appear.
 */
import { inject } from '@adonisjs/core'
import { BaseStep } from '@cairn/adonis'
import Inventory, { type Reservation } from '#services/inventory'

export interface ReserveStockInput {
  orderId: string
  sku: string
  quantity: number
}

@inject()
export default class ReserveStockStep extends BaseStep<ReserveStockInput, Reservation> {
  static step = { name: 'reserve-stock' }

  #inventory: Inventory

  constructor(inventory: Inventory) {
    super()
    this.#inventory = inventory
  }

  async run(input: ReserveStockInput): Promise<Reservation> {
    return this.#inventory.reserve(input.orderId, input.sku, input.quantity)
  }
}
