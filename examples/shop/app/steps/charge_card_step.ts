/**
 * Charges the card through the gateway. An external call cannot join a database transaction,
 * so this step is at-least-once and relies on the gateway's idempotency key instead. It runs on
 * the shop's worker (`node ace durable:worker`), where the container builds it the same way.
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
  // On the db transport: a `node ace durable:worker` process charges, not the web server. On
  // the `payment-gateway` queue (config/durable.ts): the gateway takes so many calls at once,
  // and so many per second, whatever the number of checkouts and workers.
  static step = { name: 'charge-card', transport: 'db', queue: 'payment-gateway' }

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
