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

export default class Orders {
  /** Records a new order priced from the catalog; its checkout run is started by the caller. */
  async place({ sku, quantity, card }: PlaceOrder): Promise<Order> {
    const product = await db.from('products').where('sku', sku).firstOrFail()
    const id = randomBytes(6).toString('hex')
    const amountCents = product.price_cents * quantity
    const now = timestamp()
    const row = {
      id,
      run_id: `checkout-${id}`,
      sku,
      quantity,
      amount_cents: amountCents,
      card_last4: card.slice(-4),
      needs_approval: amountCents > shopConfig.approvalThresholdCents,
      status: 'placed',
      approved_by: null,
      failure_reason: null,
      created_at: now,
      updated_at: now,
    }
    await db.insertQuery().table('orders').insert(row)
    return toOrder(row)
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
