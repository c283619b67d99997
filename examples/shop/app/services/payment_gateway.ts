/**
 * A fake card payment gateway, standing in for Stripe or Adyen. Like them, it takes an
 * idempotency key: a call repeating a key it has seen moves no money and answers what it
 * answered the first time. It keeps every call in `gateway_calls` and the money it moved in
 * `payments`, so the shop (and its tests) can count charges.
 */
import { randomBytes } from 'node:crypto'
import { inject } from '@adonisjs/core'
import db from '@adonisjs/lucid/services/db'
import { timestamp } from '#services/timestamp'
import { FatalError } from '@cairn/core'
import FaultInjection from '#services/fault_injection'

/** Test card numbers the gateway declines (the first is Stripe's "generic decline" test card). */
export const DECLINED_CARDS = new Set(['4000000000000002', '4000000000009995'])

/**
 * The card as a payment token, the way a provider's client library hands one out: the card
 * number goes to the provider and nowhere else — not into the order, the workflow's input, the
 * run's history or the dashboard. This fake's tokens say what its test cards do (as Stripe's
 * `tok_visa` and `tok_chargeDeclined` test tokens do); a real one says nothing.
 */
export function tokenizeCard(card: string): string {
  const kind = DECLINED_CARDS.has(card) ? 'tok_chargeDeclined' : 'tok_visa'
  return `${kind}_${randomBytes(8).toString('hex')}`
}

export interface ChargeRequest {
  orderId: string
  /** The payment token (tokenizeCard), never a card number. */
  cardToken: string
  amountCents: number
  /** Same key, same charge: the caller derives it from what it is paying for (run id + step). */
  idempotencyKey: string
}

export interface Charge {
  chargeId: string
  orderId: string
  amountCents: number
}

export interface Refund {
  refundId: string
  chargeId: string
  amountCents: number
}

type Operation = 'charge' | 'refund'
type Outcome = 'accepted' | 'replayed' | 'declined'

@inject()
export default class PaymentGateway {
  #faults: FaultInjection

  constructor(faults: FaultInjection) {
    this.#faults = faults
  }

  /** Charges the card; FatalError (never retried) when the card is declined. */
  async charge(request: ChargeRequest): Promise<Charge> {
    const { orderId, amountCents, idempotencyKey } = request
    const earlier = await this.#paymentWithKey(idempotencyKey)
    if (earlier) {
      await this.#recordCall(orderId, 'charge', idempotencyKey, 'replayed')
      return { chargeId: earlier.id, orderId, amountCents: earlier.amount_cents }
    }
    if (request.cardToken.startsWith('tok_chargeDeclined')) {
      await this.#recordCall(orderId, 'charge', idempotencyKey, 'declined')
      throw new FatalError('The card was declined', { details: { reason: 'card_declined' } })
    }
    const chargeId = `ch_${randomBytes(8).toString('hex')}`
    await db.transaction(async (trx) => {
      await trx.insertQuery().table('payments').insert({
        id: chargeId,
        order_id: orderId,
        kind: 'charge',
        amount_cents: amountCents,
        idempotency_key: idempotencyKey,
        created_at: timestamp(),
      })
      await this.#recordCall(orderId, 'charge', idempotencyKey, 'accepted', trx)
    })
    await this.#faults.reach('hang-after-charge')
    return { chargeId, orderId, amountCents }
  }

  /** Refunds a charge in full; refunding it again returns the first refund. */
  async refund(charge: Charge): Promise<Refund> {
    const idempotencyKey = `refund:${charge.chargeId}`
    const earlier = await this.#paymentWithKey(idempotencyKey)
    if (earlier) {
      await this.#recordCall(charge.orderId, 'refund', idempotencyKey, 'replayed')
      return { refundId: earlier.id, chargeId: charge.chargeId, amountCents: earlier.amount_cents }
    }
    const refundId = `re_${randomBytes(8).toString('hex')}`
    await db.transaction(async (trx) => {
      await trx.insertQuery().table('payments').insert({
        id: refundId,
        order_id: charge.orderId,
        kind: 'refund',
        amount_cents: charge.amountCents,
        idempotency_key: idempotencyKey,
        created_at: timestamp(),
      })
      await this.#recordCall(charge.orderId, 'refund', idempotencyKey, 'accepted', trx)
    })
    return { refundId, chargeId: charge.chargeId, amountCents: charge.amountCents }
  }

  async #paymentWithKey(idempotencyKey: string) {
    return db.from('payments').where('idempotency_key', idempotencyKey).first()
  }

  async #recordCall(
    orderId: string,
    operation: Operation,
    idempotencyKey: string,
    outcome: Outcome,
    client: Pick<typeof db, 'insertQuery'> = db,
  ) {
    await client.insertQuery().table('gateway_calls').insert({
      order_id: orderId,
      operation,
      idempotency_key: idempotencyKey,
      outcome,
      called_at: timestamp(),
    })
  }
}
