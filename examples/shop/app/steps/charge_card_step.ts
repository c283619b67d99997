/**
 * Charges the card through the gateway. An external call cannot join a database transaction,
 * so this step is at-least-once and relies on the gateway's idempotency key instead.
 */
import { inject } from '@adonisjs/core'
import { BaseStep } from '@cairn/adonis'
import type { StepContext } from '@cairn/core'
import PaymentGateway, { type Charge } from '#services/payment_gateway'

export interface ChargeCardInput {
  orderId: string
  /** The payment token (ChargeRequest.cardToken), never a card number. */
  cardToken: string
  amountCents: number
}

@inject()
export default class ChargeCardStep extends BaseStep<ChargeCardInput, Charge> {
  static step = { name: 'charge-card' }

  #payments: PaymentGateway

  constructor(payments: PaymentGateway) {
    super()
    this.#payments = payments
  }

  async run(input: ChargeCardInput, step: StepContext): Promise<Charge> {
    // The key names this run's charge step and is the same on every attempt: a re-run after a
    // crash repeats it, and the gateway answers with the first charge instead of charging again.
    return this.#payments.charge({ ...input, idempotencyKey: step.idempotencyKey })
  }
}
