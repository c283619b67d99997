/**
 * What the shop's own tables say about an order beyond its row: the stock it holds, the money
 * the gateway moved, every gateway call, its shipment. Read-only (GET /orders/:id).
 */
import db from '@adonisjs/lucid/services/db'

export interface OrderRecords {
  reservation: { sku: string; quantity: number; released: boolean } | null
  payments: Array<{ id: string; kind: string; amountCents: number; at: Date }>
  gatewayCalls: Array<{ operation: string; outcome: string; idempotencyKey: string; at: Date }>
  shipment: { trackingNumber: string } | null
}

export default class OrderRecordsReader {
  async read(orderId: string): Promise<OrderRecords> {
    const [reservation, payments, calls, shipment] = await Promise.all([
      db.from('stock_reservations').where('order_id', orderId).first(),
      db.from('payments').where('order_id', orderId).orderBy('created_at').orderBy('id'),
      db.from('gateway_calls').where('order_id', orderId).orderBy('id'),
      db.from('shipments').where('order_id', orderId).first(),
    ])
    return {
      reservation: reservation
        ? {
            sku: reservation.sku,
            quantity: Number(reservation.quantity),
            released: reservation.released_at !== null,
          }
        : null,
      payments: payments.map((row) => ({
        id: row.id,
        kind: row.kind,
        amountCents: Number(row.amount_cents),
        at: new Date(row.created_at),
      })),
      gatewayCalls: calls.map((row) => ({
        operation: row.operation,
        outcome: row.outcome,
        idempotencyKey: row.idempotency_key,
        at: new Date(row.called_at),
      })),
      shipment: shipment ? { trackingNumber: shipment.tracking_number } : null,
    }
  }
}
