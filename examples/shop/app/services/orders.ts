/**
 * The orders table: placing an order, and the status changes the checkout run makes.
 * Each status change is idempotent (setting the same status again changes nothing), as a
 * step may run again after a crash.
 */
import { randomBytes } from 'node:crypto'
import db from '@adonisjs/lucid/services/db'
import type { QueryClientContract } from '@adonisjs/lucid/types/database'
import { timestamp } from '#services/timestamp'
import shopConfig from '#config/shop'

export type OrderStatus = 'placed' | 'awaiting_approval' | 'approved' | 'completed' | 'failed'

export interface Order {
  id: string
  runId: string
  sku: string
  quantity: number
  amountCents: number
  cardLast4: string
  needsApproval: boolean
  status: OrderStatus
  approvedBy: string | null
  failureReason: string | null
  createdAt: Date
  updatedAt: Date
}

export interface PlaceOrder {
  sku: string
  quantity: number
  card: string
}

/** What the checkout run knows of its order: enough to write its row. */
export interface RecordOrder {
  orderId: string
  sku: string
  quantity: number
  amountCents: number
  /** The last four digits, for the order page: the run never holds the card number. */
  cardLast4: string
  needsApproval: boolean
}

function orderRow(
  id: string,
  sku: string,
  quantity: number,
  amountCents: number,
  cardLast4: string,
  now: string,
) {
  return {
    id,
    run_id: `checkout-${id}`,
    sku,
    quantity,
    amount_cents: amountCents,
    card_last4: cardLast4,
    needs_approval: amountCents > shopConfig.approvalThresholdCents,
    status: 'placed',
    approved_by: null,
    failure_reason: null,
    created_at: now,
    updated_at: now,
  }
}

export default class Orders {
  /**
   * Prices a new order from the catalog and gives it an id; nothing is written. Its row is
   * written by the checkout run's first step (`record`), so an order never exists without its
   * run: the route starts the run, and the run records the order.
   */
  async draft({ sku, quantity, card }: PlaceOrder): Promise<Order> {
    const product = await db.from('products').where('sku', sku).firstOrFail()
    const id = randomBytes(6).toString('hex')
    const amountCents = product.price_cents * quantity
    const now = timestamp()
    return toOrder(orderRow(id, sku, quantity, amountCents, card.slice(-4), now))
  }

  /** Writes a drafted order's row through `client` (the run's `ctx.transaction`). */
  async record(order: RecordOrder, client: QueryClientContract): Promise<void> {
    const row = orderRow(
      order.orderId,
      order.sku,
      order.quantity,
      order.amountCents,
      order.cardLast4,
      timestamp(),
    )
    row.needs_approval = order.needsApproval
    await client.insertQuery().table('orders').insert(row)
  }

  async find(id: string): Promise<Order | null> {
    const row = await db.from('orders').where('id', id).first()
    return row ? toOrder(row) : null
  }

  async markAwaitingApproval(id: string): Promise<void> {
    await this.#update(id, { status: 'awaiting_approval' })
  }

  async markApproved(id: string, by: string): Promise<void> {
    await this.#update(id, { status: 'approved', approved_by: by })
  }

  /** `client`: a transaction to write through (the run's `ctx.transaction`), else `db`. */
  async markCompleted(id: string, client?: QueryClientContract): Promise<void> {
    await this.#update(id, { status: 'completed' }, client)
  }

  /** Open orders (placed, awaiting approval) unchanged since `before`, oldest first, at most `limit`. */
  async stale(before: Date, limit: number): Promise<Order[]> {
    const rows = await db
      .from('orders')
      .whereIn('status', ['placed', 'awaiting_approval'])
      .where('updated_at', '<=', timestamp(before))
      .orderBy('updated_at')
      .limit(limit)
    return rows.map(toOrder)
  }

  async markFailed(id: string, reason: string): Promise<void> {
    await this.#update(id, { status: 'failed', failure_reason: reason })
  }

  async #update(
    id: string,
    changes: Record<string, unknown>,
    client: QueryClientContract = db.connection(),
  ): Promise<void> {
    await client
      .from('orders')
      .where('id', id)
      .update({ ...changes, updated_at: timestamp() })
  }
}

function toOrder(row: Record<string, unknown>): Order {
  return {
    id: row.id as string,
    runId: row.run_id as string,
    sku: row.sku as string,
    quantity: Number(row.quantity),
    amountCents: Number(row.amount_cents),
    cardLast4: row.card_last4 as string,
    // SQLite keeps booleans as 0/1.
    needsApproval: Boolean(row.needs_approval),
    status: row.status as OrderStatus,
    approvedBy: (row.approved_by as string | null) ?? null,
    failureReason: (row.failure_reason as string | null) ?? null,
    createdAt: new Date(row.created_at as string | number | Date),
    updatedAt: new Date(row.updated_at as string | number | Date),
  }
}
