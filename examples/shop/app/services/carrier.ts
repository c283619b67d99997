/**
 * A fake shipping carrier. Shipping an order twice (a step re-run after a crash) returns the
 * first shipment. It refuses products marked as not shippable: the demo's failing step. It
 * takes delivery callback requests and, being a fake, never calls back by itself: a test (or
 * you, with curl) plays the carrier and POSTs to the callback address.
 */
import { randomBytes } from 'node:crypto'
import db from '@adonisjs/lucid/services/db'
import { timestamp } from '#services/timestamp'
import { FatalError } from '@cairn/core'

export interface Shipment {
  orderId: string
  trackingNumber: string
}

export default class Carrier {
  async ship(orderId: string, sku: string): Promise<Shipment> {
    const existing = await db.from('shipments').where('order_id', orderId).first()
    if (existing) return { orderId, trackingNumber: existing.tracking_number }
    const product = await db.from('products').where('sku', sku).first()
    if (!product?.can_ship) {
      throw new FatalError(`The carrier refuses to ship ${sku}`, {
        details: { reason: 'not_shippable', sku },
      })
    }
    const trackingNumber = `TRK-${randomBytes(5).toString('hex').toUpperCase()}`
    await db
      .insertQuery()
      .table('shipments')
      .insert({ order_id: orderId, tracking_number: trackingNumber, created_at: timestamp() })
    return { orderId, trackingNumber }
  }

  /** The tracking number of the order's shipment; an order that has not shipped has none. */
  async trackingNumberOf(orderId: string): Promise<string> {
    const shipment = await db.from('shipments').where('order_id', orderId).first()
    if (!shipment) {
      throw new FatalError(`Order ${orderId} has not shipped`, {
        details: { reason: 'not_shipped' },
      })
    }
    return shipment.tracking_number as string
  }

  /**
   * Asks the carrier to POST a proof of delivery to `callbackUrl` once the parcel is delivered
   * (a real carrier's API call; idempotent by tracking number). What the carrier was told is
   * the step's recorded result.
   */
  async requestDeliveryCallback(trackingNumber: string, callbackUrl: string | null) {
    if (callbackUrl === null) throw new FatalError('config/durable.ts has no webhookUrl')
    return { trackingNumber, callbackUrl }
  }
}
