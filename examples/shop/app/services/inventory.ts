/**
 * Stock: reserving takes it from a product for an order, releasing gives it back. Both are
 * idempotent per order (a step may run again after a crash): the reservation row is the
 * record of what was taken.
 */
import db from '@adonisjs/lucid/services/db'
import { timestamp } from '#services/timestamp'
import { FatalError } from '@cairn/core'

export interface Reservation {
  orderId: string
  sku: string
  quantity: number
}

export default class Inventory {
  /** Takes `quantity` of `sku` for the order; FatalError when there is not enough stock. */
  async reserve(orderId: string, sku: string, quantity: number): Promise<Reservation> {
    return db.transaction(async (trx) => {
      const existing = await trx.from('stock_reservations').where('order_id', orderId).first()
      if (existing) return { orderId, sku: existing.sku, quantity: existing.quantity }
      // Conditional decrement: two orders racing for the last items cannot both get them.
      const taken = await trx
        .from('products')
        .where('sku', sku)
        .where('stock', '>=', quantity)
        .decrement('stock', quantity)
      if (affectedRows(taken) === 0) {
        throw new FatalError(`Not enough stock of ${sku} for ${quantity}`, {
          details: { reason: 'out_of_stock', sku, quantity },
        })
      }
      await trx
        .insertQuery()
        .table('stock_reservations')
        .insert({ order_id: orderId, sku, quantity, reserved_at: timestamp() })
      return { orderId, sku, quantity }
    })
  }

  /** Gives a reservation's stock back, once however often it is called (a compensation). */
  async release(reservation: Reservation): Promise<{ released: number }> {
    return db.transaction(async (trx) => {
      const marked = await trx
        .from('stock_reservations')
        .where('order_id', reservation.orderId)
        .whereNull('released_at')
        .update({ released_at: timestamp() })
      if (affectedRows(marked) === 0) return { released: 0 }
      await trx
        .from('products')
        .where('sku', reservation.sku)
        .increment('stock', reservation.quantity)
      return { released: reservation.quantity }
    })
  }
}

/** An UPDATE's affected-row count: a number from better-sqlite3, `[n]` from some drivers. */
function affectedRows(result: unknown): number {
  return Number(Array.isArray(result) ? result[0] : result)
}
